// Large payloads live in the JetStream Object Store; events carry a PayloadRef. Names are
// deterministic (`<kind>/<job>/<page>/<what>`), so a redelivered stage overwrites its own
// object instead of leaking a second copy.
//
// Reads take a fast path for the common object, one chunk (up to 128 KiB: a page's HTML, a
// result): two direct gets (the object's meta, then its chunk), checked against the meta's
// size and SHA-256 as the client checks them; one, the chunk's, when the reference names
// the chunk it was written as (a reference this store made: PayloadRef.chunk). The client's own read makes an ordered
// consumer per object (create, deliver, delete): on a crawl that is one per page in the
// transformer and one per page the gateway serves. Larger, linked or unusual objects take
// the client's read.
//
// Writes of one chunk take a fast path too, the client's own protocol written out: the
// chunk under a fresh nuid, then the meta with a subject rollup, then the previous
// version's chunk purged. The client hashes with a pure-JavaScript SHA-256 and streams
// every put through a ReadableStream; here node:crypto hashes and the previous meta is
// read by a direct get while the chunk is stored. Larger objects take the client's put.
import crypto from 'node:crypto';
import { headers, nuid, type JetStreamClient, type JetStreamManager, type ObjectStore } from 'nats';
import type { PayloadRef } from '../../domain/events/common.js';
import { PAYLOAD_BUCKET } from '../subjects.js';
import { madeOnce } from '../made-once.js';

/** The parts of nats.js's object meta the fast path reads. */
interface ObjectMeta {
  nuid: string;
  size: number;
  chunks: number;
  digest?: string;
  deleted?: boolean;
  options?: { link?: unknown };
}

interface DirectLast {
  getMessage(stream: string, query: { last_by_subj: string }): Promise<{ data: Uint8Array }>;
}

const DIGEST_PREFIX = 'SHA-256=';
/** The client's chunk size: a larger object is several chunks, left to the client's put. */
const MAX_CHUNK_BYTES = 128 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class PayloadNotFoundError extends Error {
  constructor(ref: PayloadRef) {
    super(`payload ${ref.bucket}/${ref.name} is gone (expired or never written)`);
    this.name = 'PayloadNotFoundError';
  }
}

export class PayloadStore {
  private readonly os: () => Promise<ObjectStore>;
  private readonly jetstreamManager: () => Promise<JetStreamManager>;

  constructor(private readonly js: JetStreamClient, private readonly bucket = PAYLOAD_BUCKET) {
    this.os = madeOnce(() => js.views.os(bucket));
    this.jetstreamManager = madeOnce(() => js.jetstreamManager());
  }

  async putBytes(name: string, data: Uint8Array, contentType: string): Promise<PayloadRef> {
    const os = await this.os();
    if (data.byteLength > MAX_CHUNK_BYTES || data.byteLength === 0 || !latin1(name)) {
      await os.putBlob({ name, description: contentType }, data);
      return { bucket: this.bucket, name, size: data.byteLength, contentType };
    }
    const chunk = await this.putOneChunk(name, data, contentType);
    return { bucket: this.bucket, name, size: data.byteLength, contentType, chunk };
  }

  /**
   * The client's put of a one-chunk object (nats.js objectstore `_put`): the chunk, then
   * the meta (rollup: it replaces the name's previous meta), then the previous version's
   * chunk purged, so a redelivered stage that overwrites its object leaves no second copy.
   */
  private async putOneChunk(name: string, data: Uint8Array, contentType: string): Promise<{ nuid: string; digest: string }> {
    const id = nuid.next();
    const stream = `OBJ_${this.bucket}`;
    const metaSubject = `$O.${this.bucket}.M.${base64UrlPadded(name)}`;
    const chunkSubject = `$O.${this.bucket}.C.${id}`;
    const purge = async (filter: string): Promise<void> => {
      await (await this.jetstreamManager()).streams.purge(stream, { filter }).catch(() => undefined);
    };
    let previous: Uint8Array | undefined;
    try {
      [previous] = await Promise.all([this.direct().then((direct) => lastBySubject(direct, stream, metaSubject)), this.js.publish(chunkSubject, data)]);
    } catch (err) {
      await purge(chunkSubject); // as the client: no chunk left without its meta
      throw err;
    }
    const digest = `${crypto.createHash('sha256').update(data).digest('base64url')}=`;
    const meta = {
      name, description: contentType, options: { max_chunk_size: MAX_CHUNK_BYTES }, bucket: this.bucket, nuid: id,
      size: data.byteLength, chunks: 1, mtime: new Date().toISOString(), digest: `${DIGEST_PREFIX}${digest}`, deleted: false,
    };
    const rollup = headers();
    rollup.set('Nats-Rollup', 'sub');
    await this.js.publish(metaSubject, encoder.encode(JSON.stringify(meta)), { headers: rollup });
    const old = previous ? (JSON.parse(decoder.decode(previous)) as Partial<ObjectMeta>) : undefined;
    // As the client: the new version is live; a failed clean-up leaves the old chunk to the bucket's TTL.
    if (old?.nuid && old.nuid !== id) await purge(`$O.${this.bucket}.C.${old.nuid}`);
    return { nuid: id, digest };
  }

  private async direct(): Promise<DirectLast> {
    // nats.js implements `direct` on its manager without declaring it on the interface.
    return ((await this.jetstreamManager()) as JetStreamManager & { direct: DirectLast }).direct;
  }

  putText(name: string, text: string, contentType = 'text/plain; charset=utf-8'): Promise<PayloadRef> {
    return this.putBytes(name, encoder.encode(text), contentType);
  }

  putJson(name: string, value: unknown): Promise<PayloadRef> {
    return this.putBytes(name, encoder.encode(JSON.stringify(value)), 'application/json');
  }

  async getBytes(ref: PayloadRef): Promise<Uint8Array> {
    const fast = await this.readOneChunk(ref);
    if (fast) return fast;
    const os = ref.bucket === this.bucket ? await this.os() : await this.js.views.os(ref.bucket);
    const data = await os.getBlob(ref.name);
    if (!data) throw new PayloadNotFoundError(ref);
    return data;
  }

  /** The object by two direct gets when it is one plain chunk; undefined for the client's read (also when not found). */
  private async readOneChunk(ref: PayloadRef): Promise<Uint8Array | undefined> {
    const direct = await this.direct();
    const stream = `OBJ_${ref.bucket}`;
    const last = (subject: string): Promise<Uint8Array | undefined> => lastBySubject(direct, stream, subject);
    // btoa refuses code units above 0xFF: such a name is left to the client as it is.
    if (!latin1(ref.name)) return undefined;
    // The chunk the reference was written with, when it names it and it is still there (the
    // name not written again since): the meta would only point at it.
    if (ref.chunk) {
      const data = await last(`$O.${ref.bucket}.C.${ref.chunk.nuid}`);
      if (data && data.byteLength === ref.size && sameDigest(ref.chunk.digest, data)) return data;
    }
    const metaBytes = await last(`$O.${ref.bucket}.M.${base64UrlPadded(ref.name)}`);
    // Not found by a direct get is not the last word: any copy answers it, and one catching up
    // (a server back from a freeze or a restart) has not seen the object yet. The client's
    // read asks the stream's leader.
    if (!metaBytes) return undefined;
    const meta = JSON.parse(decoder.decode(metaBytes)) as ObjectMeta;
    if (meta.deleted) throw new PayloadNotFoundError(ref);
    if (meta.options?.link || !meta.digest?.startsWith(DIGEST_PREFIX)) return undefined;
    if (meta.size === 0) return new Uint8Array(0);
    if (meta.chunks !== 1) return undefined;
    const data = await last(`$O.${ref.bucket}.C.${meta.nuid}`);
    if (!data || data.byteLength !== meta.size || !sameDigest(meta.digest.slice(DIGEST_PREFIX.length), data)) return undefined;
    return data;
  }

  async getText(ref: PayloadRef): Promise<string> {
    return decoder.decode(await this.getBytes(ref));
  }

  async getJson<T>(ref: PayloadRef): Promise<T> {
    return JSON.parse(await this.getText(ref)) as T;
  }
}

/** The last message on `subject` by a direct get, or undefined when there is none. */
async function lastBySubject(direct: DirectLast, stream: string, subject: string): Promise<Uint8Array | undefined> {
  try {
    return (await direct.getMessage(stream, { last_by_subj: subject })).data;
  } catch (err) {
    if ((err as { code?: string }).code === '404') return undefined;
    throw err;
  }
}

/** Whether nats.js can name the object (its meta subject is btoa of the name, Latin-1 only). */
function latin1(name: string): boolean {
  return !/[^\u0000-\u00ff]/.test(name);
}

/** nats.js names an object's meta subject by btoa(name) (Latin-1 code units) in base64url with padding. */
function base64UrlPadded(name: string): string {
  const unpadded = Buffer.from(name, 'latin1').toString('base64url');
  return unpadded + '='.repeat((4 - (unpadded.length % 4)) % 4);
}

/** The meta's digest (base64url or base64, padded or not, as clients write it) against the data's SHA-256. */
function sameDigest(expected: string, data: Uint8Array): boolean {
  const hash = crypto.createHash('sha256').update(data).digest();
  const normalized = (text: string) => text.replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_');
  return normalized(expected) === normalized(hash.toString('base64url'));
}
