// Documents made at test time (pdfkit for PDF, docx for DOCX): the tests and the bench
// serve them from their own sites, so no binary fixture is committed.
import zlib from 'node:zlib';
import { AlignmentType, Document, HeadingLevel, ImageRun, LevelFormat, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from 'docx';
import PDFDocument from 'pdfkit';

type PdfKit = InstanceType<typeof PDFDocument>;

async function pdf(options: ConstructorParameters<typeof PDFDocument>[0], draw: (doc: PdfKit) => void): Promise<Buffer> {
  const doc = new PDFDocument({ ...options, info: { ...options?.info } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => doc.on('end', resolve));
  draw(doc);
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

export const REPORT = {
  title: 'Quarterly Report',
  author: 'Ada Lovelace',
  heading: 'Annual Results',
  section: 'Regional Figures',
  paragraph: 'Revenue grew in every region this year, led by the northern offices that opened two new sites and doubled their customer base over the period.',
  bullets: ['Costs fell by a tenth', 'Hiring stayed flat'],
  table: [['Region', 'Revenue', 'Growth'], ['North', '1200', '5%'], ['South', '900', '3%']],
};

/** One page: a title heading, a paragraph that wraps, a section heading, a list and a table. */
export function reportPdf(opts: { userPassword?: string } = {}): Promise<Buffer> {
  return pdf({ info: { Title: REPORT.title, Author: REPORT.author }, ...(opts.userPassword ? { userPassword: opts.userPassword, ownerPassword: 'owner', pdfVersion: '1.7' } : {}) }, (doc) => {
    drawReport(doc);
  });
}

function drawReport(doc: PdfKit, page?: number): void {
  doc.font('Helvetica-Bold').fontSize(24).text(page === undefined ? REPORT.heading : `${REPORT.heading} ${page}`);
  doc.moveDown(0.5);
  doc.font('Helvetica').fontSize(11).text(REPORT.paragraph);
  doc.moveDown();
  doc.font('Helvetica-Bold').fontSize(16).text(REPORT.section);
  doc.moveDown(0.5);
  doc.font('Helvetica').fontSize(11);
  for (const bullet of REPORT.bullets) doc.text(`• ${bullet}`);
  doc.moveDown();
  const top = doc.y;
  const columns = [72, 220, 360];
  REPORT.table.forEach((row, r) => row.forEach((cell, c) => doc.text(cell, columns[c], top + r * 18, { lineBreak: false })));
  doc.x = 72;
  doc.y = top + REPORT.table.length * 18 + 12;
}

/** `pages` pages of the report, each with its page number at the bottom (a running footer). */
export function longReportPdf(pages: number): Promise<Buffer> {
  return pdf({ info: { Title: 'Long Report', Author: REPORT.author } }, (doc) => {
    for (let p = 1; p <= pages; p++) {
      if (p > 1) doc.addPage();
      drawReport(doc, p);
      for (let i = 0; i < 6; i++) doc.font('Helvetica').fontSize(11).text(`${REPORT.paragraph} (${p}.${i})`).moveDown(0.5);
      doc.fontSize(9).text(String(p), 300, 740, { lineBreak: false });
      doc.x = 72;
    }
  });
}

/** A "scanned" page: one grey image, no text layer. */
export function scannedPdf(): Promise<Buffer> {
  return pdf({ info: { Title: 'Scan' } }, (doc) => {
    doc.image(greyPng(200, 260), 72, 72, { width: 400 });
  });
}

/** A typed page, then a scanned one (image only). */
export function mixedPdf(): Promise<Buffer> {
  return pdf({ info: { Title: 'Mixed' } }, (doc) => {
    drawReport(doc);
    doc.addPage();
    doc.image(greyPng(200, 260), 72, 72, { width: 400 });
  });
}

/** A valid PNG of one grey (with a darker band), built by hand: signature, IHDR, IDAT, IEND. */
function greyPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) rows.fill(y % 20 < 3 ? 60 : 200, y * (width + 1) + 1, (y + 1) * (width + 1));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** Bytes that start like a PDF and then are not one. */
export function corruptPdf(): Buffer {
  return Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(4096, 0x42), Buffer.from('\n%%EOF\n')]);
}

export const MEMO = {
  title: 'Team Memo',
  author: 'Grace Hopper',
  heading: 'Launch Plan',
  items: ['Freeze the code', 'Ship the build'],
  table: [['Task', 'Owner'], ['Docs', 'Ada'], ['Tests', 'Alan']],
  imageAlt: 'Team logo',
};

/** A DOCX with a heading, a paragraph, a bulleted list, a table, an embedded image (alt text), and core properties. */
export async function memoDocx(): Promise<Buffer> {
  const doc = new Document({
    title: MEMO.title,
    creator: MEMO.author,
    numbering: { config: [{ reference: 'bullets', levels: [{ level: 0, format: LevelFormat.BULLET, text: '•', alignment: AlignmentType.LEFT }] }] },
    sections: [{
      children: [
        new Paragraph({ text: MEMO.heading, heading: HeadingLevel.HEADING_1 }),
        new Paragraph({ children: [new TextRun('We launch on Monday. '), new TextRun({ text: 'Everyone', bold: true }), new TextRun(' helps.')] }),
        ...MEMO.items.map((item) => new Paragraph({ text: item, numbering: { reference: 'bullets', level: 0 } })),
        new Table({ rows: MEMO.table.map((row) => new TableRow({ children: row.map((cell) => new TableCell({ children: [new Paragraph(cell)] })) })) }),
        new Paragraph({ children: [new ImageRun({ type: 'png', data: greyPng(8, 8), transformation: { width: 20, height: 20 }, altText: { name: 'logo', title: 'Logo', description: MEMO.imageAlt } })] }),
      ],
    }],
  });
  return Packer.toBuffer(doc);
}
