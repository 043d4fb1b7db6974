// The MCP stdio transport of `trawl mcp`, in place of the SDK's StdioServerTransport, whose
// reader closes the whole connection when 10 MB arrive without a newline (the process then
// exits 0 and the agent loses its tools) and answers nothing to a line that is not JSON.
// This one reads newline-delimited JSON-RPC with a bounded buffer: a line over
// MCP_LIMITS.maxMessageBytes is discarded up to its newline, never held; a line that is not
// JSON, nests too deep or holds too many values is refused before JSON.parse or the SDK's
// schema sees it, one with a "__proto__" key after it; each refusal is a JSON-RPC error reply, and the server goes on reading.
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export const MCP_LIMITS = {
  /** The gateway takes 1 MiB request bodies: a bigger tool call could not be forwarded anyway. */
  maxMessageBytes: 1024 * 1024,
  /** Arrays and objects inside one another; the deepest real call (an extract schema in a crawl) is about 20. */
  maxJsonDepth: 64,
  /** Values in one message (counted as `,` `:` `[` `{`); 100 URLs and a 200-field extract schema are ~2,000. */
  maxJsonValues: 20_000,
} as const;

export interface JsonShapeLimits { maxJsonDepth: number; maxJsonValues: number }

/**
 * Why `text` must not be parsed (too deep, too many values), or undefined. One pass over
 * the characters outside strings, so a hostile message costs its length and no recursion.
 */
export function jsonShapeProblem(text: string, limits: JsonShapeLimits = MCP_LIMITS): string | undefined {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) { // { [
      if (++depth > limits.maxJsonDepth) return `JSON nests deeper than ${limits.maxJsonDepth} levels`;
      values++;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c || c === 0x3a) values++; // , :
    if (values > limits.maxJsonValues) return `JSON holds more than ${limits.maxJsonValues} values`;
  }
  return undefined;
}

// The id of a request we refuse unread, so that the client's pending call fails at once
// instead of timing out. JSON-RPC clients put it first ({"jsonrpc":"2.0","id":1,...}) or,
// as the TypeScript SDK does, last (...,"jsonrpc":"2.0","id":1}): a line that ends in
// `"id":1}` has it as a member of the top-level object, whatever came before.
const ID = '(-?\\d{1,15}|"[^"\\\\]{0,256}")';
const ID_AT_HEAD = new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?"id"\\s*:\\s*${ID}\\s*[,}]`);
const ID_AT_TAIL = new RegExp(`[{,]\\s*"id"\\s*:\\s*${ID}\\s*\\}\\s*$`);
const SNIFF_BYTES = 512;

function sniffId(head: string, tail: string): RequestId | undefined {
  const m = ID_AT_HEAD.exec(head) ?? ID_AT_TAIL.exec(tail);
  return m ? JSON.parse(m[1]!) as RequestId : undefined;
}

const idOf = (value: unknown): RequestId | undefined => {
  const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
};

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private parts: Buffer[] = [];
  private lineBytes = 0;
  /** Set while the rest of an over-long line is skipped: its first and last bytes (for the id). */
  private skipping: { head: string; tail: Buffer; answered: boolean } | undefined;
  private closed = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    private readonly maxMessageBytes: number = MCP_LIMITS.maxMessageBytes,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    this.stdin.once('end', this.onEnd);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const line = `${JSON.stringify(message)}\n`;
    if (this.stdout.write(line)) return;
    await new Promise<void>((resolve) => this.stdout.once('drain', resolve));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    this.stdin.off('end', this.onEnd);
    this.stdin.pause();
    this.parts = [];
    this.onclose?.();
  }

  private readonly onStreamError = (error: Error): void => { this.onerror?.(error); };
  private readonly onEnd = (): void => { void this.close(); };

  private readonly onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let start = 0; start <= data.length;) {
      const nl = data.indexOf(0x0a, start);
      this.take(data.subarray(start, nl === -1 ? data.length : nl));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  };

  /** A piece of the current line: kept while the line fits, else only its edges. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.lineBytes += piece.length;
    if (this.skipping) {
      const tail = Buffer.concat([this.skipping.tail, piece.subarray(-SNIFF_BYTES)]);
      this.skipping.tail = tail.subarray(-SNIFF_BYTES);
      return;
    }
    if (this.lineBytes <= this.maxMessageBytes) {
      this.parts.push(piece);
      return;
    }
    const kept = Buffer.concat([...this.parts, piece]);
    this.parts = [];
    this.skipping = { head: kept.subarray(0, SNIFF_BYTES).toString('utf8'), tail: kept.subarray(-SNIFF_BYTES), answered: false };
    // With the id known already, the client learns now, not when (if ever) the line ends.
    const id = sniffId(this.skipping.head, '');
    if (id !== undefined) this.refuseTooLarge(id);
  }

  private endLine(): void {
    const skipped = this.skipping;
    const parts = this.parts;
    const bytes = this.lineBytes;
    this.skipping = undefined;
    this.parts = [];
    this.lineBytes = 0;
    if (skipped) {
      if (!skipped.answered) this.refuseTooLarge(sniffId(skipped.head, skipped.tail.toString('utf8')), bytes);
      return;
    }
    const text = Buffer.concat(parts).toString('utf8').replace(/\r$/, '');
    if (text.trim() !== '') this.handleLine(text);
  }

  private refuseTooLarge(id: RequestId | undefined, bytes?: number): void {
    if (this.skipping) this.skipping.answered = true;
    const size = bytes === undefined ? `over ${this.maxMessageBytes}` : String(bytes);
    this.refuse(ErrorCode.InvalidRequest, `message too large: ${size} bytes, the limit is ${this.maxMessageBytes} bytes per JSON-RPC message; it was discarded`, id);
  }

  private handleLine(text: string): void {
    const shape = jsonShapeProblem(text);
    if (shape) {
      this.refuse(ErrorCode.InvalidRequest, `message refused: ${shape}`, sniffId(text.slice(0, SNIFF_BYTES), text.slice(-SNIFF_BYTES)));
      return;
    }
    let value: unknown;
    let proto = false;
    try {
      // Only a line that mentions it pays for the reviver.
      value = text.includes('__proto__') ? JSON.parse(text, (key, v: unknown) => { if (key === '__proto__') proto = true; return v; }) : JSON.parse(text);
    } catch (err) {
      this.refuse(ErrorCode.ParseError, `parse error: not JSON (${(err as Error).message})`, undefined);
      return;
    }
    if (proto) {
      // The SDK's schemas would drop the key silently (or set a prototype with it): refused
      // as the gateway's JSON body parser refuses it.
      this.refuse(ErrorCode.InvalidRequest, 'message refused: a "__proto__" key is not allowed', idOf(value));
      return;
    }
    const message = JSONRPCMessageSchema.safeParse(value);
    if (!message.success) {
      this.refuse(ErrorCode.InvalidRequest, 'invalid request: not a JSON-RPC 2.0 request, notification or response', idOf(value));
      return;
    }
    this.onmessage?.(message.data);
  }

  /** A JSON-RPC error reply; without a known id the id is left out (the MCP schema's form). */
  private refuse(code: ErrorCode, message: string, id: RequestId | undefined): void {
    process.stderr.write(`trawl mcp: ${message}\n`);
    void this.send({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: { code, message } } as JSONRPCMessage);
  }
}
