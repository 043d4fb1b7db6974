// What each document parser gives back (documents/*.ts), before it becomes a TransformOutput.
export interface ParsedDocument {
  /** '' when nothing could be read (needsOcr). */
  markdown: string;
  /** An HTML rendering when the parser has one (DOCX through mammoth). */
  html?: string;
  title?: string;
  author?: string;
  /** Pages in the document, when the format knows (PDF always; DOCX from its app properties). */
  pageCount?: number;
  /** Pages parsed, when fewer than pageCount (maxPages). */
  pagesParsed?: number;
  needsOcr?: boolean;
  /** PDF with a text layer: its pages without one (1-based, first 100). */
  pagesWithoutText?: number[];
}
