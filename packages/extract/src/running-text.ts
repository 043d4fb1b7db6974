// Links inside a sentence. A link whose parent also holds text of its own ("the <a>Field()</a>
// function is used a lot") is a word of that sentence, whatever its class says: docs
// generators name their cross-reference links after the plugin that made them (MkDocs'
// "autorefs", which reads as the German "Autor"), and taking the link out leaves a sentence
// with a hole. A widget's link (a share button, an author box, a tag) stands in a block of
// its own, or beside other links, not between the words of a paragraph.

/**
 * Whether `el` is a link between words: an <a> whose parent has a text node of its own with
 * a letter or digit in it, not counting the text of the link or of other elements.
 */
export function isLinkInRunningText(el: Element): boolean {
  if (el.localName !== 'a') return false;
  const parent = el.parentElement;
  if (!parent) return false;
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    if (node.nodeType === TEXT_NODE && /[\p{L}\p{N}]/u.test(node.nodeValue ?? '')) return true;
  }
  return false;
}

const TEXT_NODE = 3;
