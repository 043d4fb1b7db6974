// Large payloads live in the JetStream Object Store; events carry a PayloadRef. Names are
// deterministic (`<kind>/<job>/<page>/<what>`), so a redelivered stage overwrites its own
// object instead of leaking a second copy.
import type { JetStreamClient, ObjectStore } from 'nats';
import type { PayloadRef } from '../events/common.js';
import { PAYLOAD_BUCKET } from '../subjects.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class PayloadNotFoundError extends Error {
  constructor(ref: PayloadRef) {
    super(`payload ${ref.bucket}/${ref.name} is gone (expired or never written)`);
    this.name = 'PayloadNotFoundError';
  }
}

export class PayloadStore {
  private store: Promise<ObjectStore> | undefined;

  constructor(private readonly js: JetStreamClient, private readonly bucket = PAYLOAD_BUCKET) {}

  private os(): Promise<ObjectStore> {
    this.store ??= this.js.views.os(this.bucket);
    return this.store;
  }

  async putBytes(name: string, data: Uint8Array, contentType: string): Promise<PayloadRef> {
    const os = await this.os();
    await os.putBlob({ name, description: contentType }, data);
    return { bucket: this.bucket, name, size: data.byteLength, contentType };
  }

  putText(name: string, text: string, contentType = 'text/plain; charset=utf-8'): Promise<PayloadRef> {
    return this.putBytes(name, encoder.encode(text), contentType);
  }

  putJson(name: string, value: unknown): Promise<PayloadRef> {
    return this.putBytes(name, encoder.encode(JSON.stringify(value)), 'application/json');
  }

  async getBytes(ref: PayloadRef): Promise<Uint8Array> {
    const os = ref.bucket === this.bucket ? await this.os() : await this.js.views.os(ref.bucket);
    const data = await os.getBlob(ref.name);
    if (!data) throw new PayloadNotFoundError(ref);
    return data;
  }

  async getText(ref: PayloadRef): Promise<string> {
    return decoder.decode(await this.getBytes(ref));
  }

  async getJson<T>(ref: PayloadRef): Promise<T> {
    return JSON.parse(await this.getText(ref)) as T;
  }
}
