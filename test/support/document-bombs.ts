// Compression bombs, made at test time: small on disk, huge once inflated (issue 20, item 4).
// Each is a real document a reader would open: a PDF whose content stream, /Metadata stream
// or object stream inflates to GiB_1_1, a DOCX whose word/document.xml does (with a
// central directory that lies about the size, as attackers' do), a DOCX of deeply nested
// or very many XML elements, and one with a "billion laughs" DTD. Nothing is ever held
// inflated here: the deflate streams are written from one reused block of padding.
import zlib from 'node:zlib';
import JSZip from 'jszip';
import { memoDocx } from './documents.js';

/** What the PDF and ZIP bombs inflate to: 1.1 GiB, as in the issue's probe. */
export const GIB_1_1 = Math.round(1.1 * 1024 ** 3);
const BLOCK = Buffer.alloc(16 * 1024 * 1024, 0x20); // spaces: valid in a content stream, XMP and XML alike

/**
 * zlib (or raw deflate) bytes of `head`, then `size` spaces, then `tail`. Made in
 * independent pieces joined by sync flushes (each piece is byte-aligned and refers to
 * nothing before it), so the 16 MiB block of spaces is deflated once and repeated: a
 * 1.1 GiB bomb costs milliseconds to make, and its zlib checksum is combined, not computed.
 */
export function deflated(size: number, opts: { head?: string; tail?: string; raw?: boolean; fill?: string } = {}): Buffer {
  const piece = (data: Buffer): Buffer => zlib.deflateRawSync(data, { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const { bytes: BLOCK_BYTES, raw: blockRaw, adler: blockAdler } = fillBlock(opts.fill ?? ' ');
  const head = Buffer.from(opts.head ?? '', 'latin1');
  const tail = Buffer.from(opts.tail ?? '', 'latin1');
  const parts: Buffer[] = [piece(head)];
  let adler = adler32(head);
  const whole = Math.floor(size / BLOCK_BYTES.length);
  for (let i = 0; i < whole; i++) {
    parts.push(blockRaw);
    adler = adler32Combine(adler, blockAdler, BLOCK_BYTES.length);
  }
  const rest = BLOCK_BYTES.subarray(0, size % BLOCK_BYTES.length);
  parts.push(piece(rest));
  adler = adler32Combine(adler, adler32(rest), rest.length);
  parts.push(zlib.deflateRawSync(tail, { level: 9 })); // the final block
  adler = adler32Combine(adler, adler32(tail), tail.length);
  if (opts.raw) return Buffer.concat(parts);
  const check = Buffer.alloc(4);
  check.writeUInt32BE(adler >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...parts, check]);
}
/** Each fill's ~16 MiB block (whole repeats of it), deflated once (a sync-flushed piece) and its checksum. */
const blocks = new Map<string, { bytes: Buffer; raw: Buffer; adler: number }>();
function fillBlock(fill: string): { bytes: Buffer; raw: Buffer; adler: number } {
  let block = blocks.get(fill);
  if (!block) {
    const bytes = fill === ' ' ? BLOCK : Buffer.from(fill.repeat(Math.floor(BLOCK.length / fill.length)), 'latin1');
    block = { bytes, raw: zlib.deflateRawSync(bytes, { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH }), adler: adler32(bytes) };
    blocks.set(fill, block);
  }
  return block;
}

const ADLER_BASE = 65521;
function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length;) {
    for (const end = Math.min(data.length, i + 5552); i < end; i++) {
      a += data[i]!;
      b += a;
    }
    a %= ADLER_BASE;
    b %= ADLER_BASE;
  }
  return ((b << 16) | a) >>> 0;
}

/** zlib's adler32_combine: the checksum of A then B from theirs and B's length. */
function adler32Combine(adler1: number, adler2: number, length2: number): number {
  const rem = length2 % ADLER_BASE;
  let sum1 = adler1 & 0xffff;
  let sum2 = (rem * sum1) % ADLER_BASE;
  sum1 += (adler2 & 0xffff) + ADLER_BASE - 1;
  sum2 += (adler1 >>> 16) + (adler2 >>> 16) + ADLER_BASE - rem;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum2 >= 2 * ADLER_BASE) sum2 -= 2 * ADLER_BASE;
  if (sum2 >= ADLER_BASE) sum2 -= ADLER_BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}

/** Twice deflated ([/FlateDecode /FlateDecode], as pdf.js decodes it): a 1.1 GiB stream in a few KB. */
function twice(size: number, opts: { head?: string; tail?: string } = {}): Buffer {
  return zlib.deflateSync(deflated(size, opts), { level: 9 });
}

const FLATE_TWICE = '/Filter [/FlateDecode /FlateDecode]';
/** "Billion laughs": ten entities, each ten of the one before (10^9 "lol"s if expanded). */
const LAUGHS = ['<!ENTITY lol0 "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`)].join('');

function stream(dict: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
}

/** A PDF of `objects` (object n is objects[n-1]) with a classic xref table; object 1 is the catalog. */
function pdfFile(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n')]);
    offsets.push(offset);
    parts.push(obj);
    offset += obj.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

const PAGE = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>';
const FONT = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
const HELLO = Buffer.from('BT /F1 12 Tf 72 700 Td (Hello from a small page) Tj ET');

/** A one-page PDF whose content stream inflates to `size` bytes (the text after the padding). */
export async function contentBombPdf(size = GIB_1_1): Promise<Buffer> {
  const content = twice(size, { tail: 'BT /F1 12 Tf 72 700 Td (After the padding) Tj ET' });
  return pdfFile(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, stream(FLATE_TWICE, content), FONT]);
}

/** A readable one-page PDF whose /Metadata (XMP) stream inflates to `size` bytes. */
export async function metadataBombPdf(size = GIB_1_1): Promise<Buffer> {
  const xmp = twice(size, { head: '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><!--', tail: '--></x:xmpmeta><?xpacket end="w"?>' });
  return pdfFile([
    '<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE,
    stream('', HELLO), FONT, stream(`/Type /Metadata /Subtype /XML ${FLATE_TWICE}`, xmp),
  ]);
}

/**
 * A PDF 1.5 whose catalog and page tree sit in an object stream that inflates to `size`
 * bytes (padding after them; pdf.js decodes the whole stream for its last object), found
 * through a cross-reference stream.
 */
export async function objectStreamBombPdf(size = GIB_1_1): Promise<Buffer> {
  const catalog = '<< /Type /Catalog /Pages 2 0 R >>';
  const pages = '<< /Type /Pages /Kids [3 0 R] /Count 1 >>';
  const header = `1 0 2 ${catalog.length + 1} `;
  const objstm = stream(`/Type /ObjStm /N 2 /First ${header.length} ${FLATE_TWICE}`, twice(size, { head: `${header}${catalog}\n${pages}\n` }));
  const head = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  // Objects 1 and 2 in the ObjStm (object 6); 3 the page; 4 its contents; 5 the font; 7 the xref stream.
  const direct: [number, Buffer][] = [[3, Buffer.from(PAGE, 'latin1')], [4, stream('', HELLO)], [5, Buffer.from(FONT, 'latin1')], [6, objstm]];
  const parts: Buffer[] = [head];
  let offset = head.length;
  const at = new Map<number, number>();
  for (const [n, body] of direct) {
    const obj = Buffer.concat([Buffer.from(`${n} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    at.set(n, offset);
    parts.push(obj);
    offset += obj.length;
  }
  at.set(7, offset);
  const entry = (type: number, field2: number, field3: number): Buffer => {
    const b = Buffer.alloc(7);
    b[0] = type;
    b.writeUInt32BE(field2, 1);
    b.writeUInt16BE(field3, 5);
    return b;
  };
  const rows = Buffer.concat([entry(0, 0, 65535), entry(2, 6, 0), entry(2, 6, 1), ...[3, 4, 5, 6, 7].map((n) => entry(1, at.get(n)!, 0))]);
  parts.push(Buffer.from('7 0 obj\n'), stream('/Type /XRef /Size 8 /W [1 4 2] /Root 1 0 R', rows), Buffer.from('\nendobj\n'));
  parts.push(Buffer.from(`startxref\n${offset}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A one-page PDF drawing `count` runs of text, each placed on its own (a 1 MB content stream holds 25,000). */
export function textRunsPdf(count: number): Buffer {
  const op = 'BT /F1 1 Tf 1 0 0 1 10 10 Tm (a) Tj ET\n';
  return pdfFile(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, stream('/Filter /FlateDecode', deflated(op.length * count, { fill: op })), FONT]);
}

/** A one-page PDF of `count` runs of 496 letters each, set tiny so that all stay on the page (pdf.js drops glyphs off it). */
export function longRunsPdf(count: number): Buffer {
  const op = `BT /F1 0.01 Tf 1 0 0 1 10 10 Tm (${'abcdefgh'.repeat(62)}) Tj ET\n`;
  return pdfFile(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, stream('/Filter /FlateDecode', deflated(op.length * count, { fill: op })), FONT]);
}

/** A readable one-page PDF whose XMP metadata declares the "billion laughs" entities and uses them. */
export function entityXmpPdf(): Buffer {
  const xmp = `<?xml version="1.0"?><!DOCTYPE x:xmpmeta [${LAUGHS}]><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">&lol9;</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>`;
  return pdfFile([
    '<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE,
    stream('', HELLO), FONT, stream('/Type /Metadata /Subtype /XML', Buffer.from(xmp)),
  ]);
}

/** A small readable PDF built like the bombs (the control: it must still parse). */
export function smallPdf(): Buffer {
  return pdfFile(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', PAGE, stream('', HELLO), FONT]);
}

// ---- DOCX ---------------------------------------------------------------------------

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
const DOC_HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>`;
const DOC_TAIL = '</w:body></w:document>';

/** An entry's bytes: given whole, or as head + `size` spaces + tail (never held inflated). */
type EntryContent = string | { head: string; size: number; tail: string; fill?: string };

/**
 * memoDocx()'s package with `parts` replaced or added, written by hand (local headers,
 * central directory) so that an entry may inflate to far more than it declares: its
 * `declared` size (both headers) when given, the truth otherwise.
 */
async function docxWith(parts: Record<string, EntryContent>, declared: Record<string, number> = {}): Promise<Buffer> {
  const memo = await JSZip.loadAsync(await memoDocx());
  const entries: { name: string; raw: Buffer; crc: number; size: number }[] = [];
  for (const name of Object.keys(memo.files).filter((n) => !memo.files[n]!.dir && !(n in parts))) {
    const data = await memo.file(name)!.async('nodebuffer');
    entries.push({ name, raw: zlib.deflateRawSync(data), crc: zlib.crc32(data), size: data.length });
  }
  for (const [name, content] of Object.entries(parts)) {
    if (typeof content === 'string') {
      const data = Buffer.from(content);
      entries.push({ name, raw: zlib.deflateRawSync(data), crc: zlib.crc32(data), size: data.length });
      continue;
    }
    const block = fillBlock(content.fill ?? ' ').bytes;
    let crc = zlib.crc32(content.head);
    for (let left = content.size; left > 0; left -= block.length) crc = zlib.crc32(left >= block.length ? block : block.subarray(0, left), crc);
    crc = zlib.crc32(content.tail, crc);
    const size = Buffer.byteLength(content.head) + content.size + Buffer.byteLength(content.tail);
    entries.push({ name, raw: deflated(content.size, { head: content.head, tail: content.tail, raw: true, ...(content.fill ? { fill: content.fill } : {}) }), crc, size });
  }
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const size = declared[e.name] ?? e.size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.raw.length, 18);
    local.writeUInt32LE(Math.min(size, 0xffffffff), 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(e.crc >>> 0, 16);
    central.writeUInt32LE(e.raw.length, 20);
    central.writeUInt32LE(Math.min(size, 0xffffffff), 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.raw);
    centrals.push(central, name);
    offset += local.length + name.length + e.raw.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A DOCX whose word/document.xml (one run of text) inflates to `size` bytes while both ZIP headers say 4 KB. */
export function zipEntryBombDocx(size = GIB_1_1, opts: { declaredSize?: number } = {}): Promise<Buffer> {
  const document = { head: `${DOC_HEAD}<w:p><w:r><w:t xml:space="preserve">`, size, tail: `</w:t></w:r></w:p>${DOC_TAIL}` };
  return docxWith({ 'word/document.xml': document }, { 'word/document.xml': opts.declaredSize ?? 4096 });
}

/** A DOCX of paragraphs of 1,000 letters, `chars` letters in all (a text-heavy document, not a bomb of the inflate budget). */
export function textHeavyDocx(chars: number): Promise<Buffer> {
  const paragraph = `<w:p><w:r><w:t>${'abcdefghij'.repeat(100)}</w:t></w:r></w:p>`;
  const size = Math.ceil(chars / 1000) * paragraph.length;
  return docxWith({ 'word/document.xml': { head: DOC_HEAD, size, tail: DOC_TAIL, fill: paragraph } });
}

/** A DOCX with an "image" entry (never XML, never converted) that inflates to `size` bytes while its headers say 4 KB. */
export function mediaBombDocx(size = GIB_1_1): Promise<Buffer> {
  return docxWith({ 'word/media/huge.bin': { head: '', size, tail: '' } }, { 'word/media/huge.bin': 4096 });
}

/** A DOCX whose body nests `depth` w:customXml elements (a few KB deflated). */
export function nestedXmlDocx(depth = 200_000): Promise<Buffer> {
  return docxWith({ 'word/document.xml': `${DOC_HEAD}${'<w:customXml>'.repeat(depth)}<w:p><w:r><w:t>deep</w:t></w:r></w:p>${'</w:customXml>'.repeat(depth)}${DOC_TAIL}` });
}

/**
 * A DOCX of `count` empty paragraphs (each a DOM node for mammoth's XML reader); with
 * `asPart`, in a part of that name that the package's relationships make the main document
 * (mammoth reads whatever they name, as XML).
 */
export async function manyElementsDocx(count = 3_000_000, opts: { asPart?: string } = {}): Promise<Buffer> {
  const body = `${DOC_HEAD}${'<w:p/>'.repeat(count)}${DOC_TAIL}`;
  if (!opts.asPart) return docxWith({ 'word/document.xml': body });
  const memo = await JSZip.loadAsync(await memoDocx());
  const rels = (await memo.file('_rels/.rels')!.async('string')).replace('word/document.xml', opts.asPart);
  const types = (await memo.file('[Content_Types].xml')!.async('string')).replace('/word/document.xml', `/${opts.asPart}`);
  return docxWith({ 'word/document.xml': `${DOC_HEAD}${DOC_TAIL}`, [opts.asPart]: body, '_rels/.rels': rels, '[Content_Types].xml': types });
}

/** A DOCX whose document.xml declares the "billion laughs" entities (10^9 "lol"s if expanded). */
export function entityBombDocx(): Promise<Buffer> {
  return docxWith({ 'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE w:document [${LAUGHS}]><w:document ${W}><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>${DOC_TAIL}` });
}

/** A ZIP of `count` empty entries (~80 bytes each), served as a DOCX. */
export function manyEntriesDocx(count = 300_000): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const name = Buffer.from(i.toString(36));
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(10, 4);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(10, 6);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name);
    centrals.push(central, name);
    offset += local.length + name.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  // The 16-bit count wraps (0xffff would announce ZIP64): readers read every record anyway.
  end.writeUInt16LE(count % 0xffff, 8);
  end.writeUInt16LE(count % 0xffff, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
