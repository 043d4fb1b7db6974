/** Bytes a JSON value adds to a response (the extract format's `json`), for the per-response size bounds. */
export function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));
}
