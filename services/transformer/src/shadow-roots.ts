// Declarative shadow DOM (`<template shadowrootmode="open">`, and Chromium's older
// `shadowroot` attribute): a server-rendered web component's content is inside such a
// template, which a browser's parser turns into the host's shadow root and shows. Our parser
// (linkedom) keeps it an inert <template>, whose content no reader sees: a page made of such
// components read as empty (`PAGE_EMPTY`) with empty markdown. Before the one parse, the
// template tags are dropped so their content stands where the browser shows it (a slot's
// light-DOM children stay beside it: order may differ from the rendering, text does not).
import { Parser } from 'htmlparser2';

const SHADOW_ROOT_MODE = /^(open|closed)$/i;

/** The HTML with every declarative shadow root opened in place; the same string when there is none. */
export function openDeclarativeShadowRoots(html: string): string {
  if (!/<template[^>]*\sshadowroot/i.test(html)) return html;
  /** Spans of the tags to drop, [start, end). */
  const cuts: Array<[number, number]> = [];
  /** For each open <template>: whether it declares a shadow root. */
  const open: boolean[] = [];
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name !== 'template') return;
      const mode = attrs.shadowrootmode ?? attrs.shadowroot;
      const shadow = mode !== undefined && SHADOW_ROOT_MODE.test(mode);
      open.push(shadow);
      if (shadow) cuts.push([parser.startIndex, parser.endIndex + 1]);
    },
    onclosetag(name, implied) {
      if (name !== 'template') return;
      // An implied close (the document ended inside) has no tag to drop.
      if (open.pop() && !implied) cuts.push([parser.startIndex, parser.endIndex + 1]);
    },
  }, { decodeEntities: false });
  parser.end(html);
  if (cuts.length === 0) return html;
  cuts.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [start, end] of cuts) {
    out += html.slice(at, start);
    at = end;
  }
  return out + html.slice(at);
}
