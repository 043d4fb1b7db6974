// A read-model collection: documents by id, each model declaring what it is listed and
// found by. Both stores (sqlite.ts, mongo.ts) implement these few operations once for
// every model; only the queries no collection can express (crawl and batch pages) are
// written per store.

export interface Page {
  limit: number;
  offset: number;
}

/** What one read model's collection is called and indexed by. */
export interface CollectionDef<Doc extends { id: string }, Listed = Doc> {
  /** Table (SQLite) and collection (MongoDB) name. */
  name: string;
  /**
   * How `list` finds documents: those whose `owner` field holds the owner asked for (no
   * `owner`: the whole collection), newest `createdAt` first, then id. `omit`: top-level
   * fields a list leaves out (dropped inside the database: a page of 100 does not parse 100
   * documents' content); `toListed` makes what a list returns of the rest.
   */
  list?: {
    owner?: keyof Doc & string;
    createdAt: keyof Doc & string;
    omit?: readonly (keyof Doc & string)[];
    toListed?: (doc: Doc) => Listed;
    /** MongoDB index name (kept as first created: a new name would conflict with it). */
    mongoIndex: string;
    /** MongoDB: index only the documents that have the owner field. */
    sparse?: boolean;
  };
  /** A unique field `find` looks documents up by (an API key's hash). */
  lookup?: { field: keyof Doc & string; mongoIndex: string };
}

export interface DocCollection<Doc extends { id: string }, Listed = Doc> {
  get(id: string): Promise<Doc | null>;
  /** Inserts or replaces the document with the same id. */
  put(doc: Doc): Promise<void>;
  delete(id: string): Promise<void>;
  /** The owner's documents, newest first (a collection listed by owner). */
  listBy(owner: string, page: Page): Promise<Listed[]>;
  /** Every document, newest first (a collection listed whole). */
  list(page: Page): Promise<Listed[]>;
  /** The document whose lookup field holds `value`. */
  find(value: string): Promise<Doc | null>;
}

/** What a list returns of a stored document (omitted fields already gone). */
export function toListed<Doc extends { id: string }, Listed>(def: CollectionDef<Doc, Listed>, doc: Doc): Listed {
  return def.list?.toListed ? def.list.toListed(doc) : (doc as unknown as Listed);
}

/** The owner a document is listed under, and when (SQLite's indexed columns; `*`: everyone). */
export function listIndex<Doc extends { id: string }>(def: CollectionDef<Doc, unknown>, doc: Doc): { owner: string | null; createdAt: string | null } {
  if (!def.list) return { owner: null, createdAt: null };
  const owner = def.list.owner ? doc[def.list.owner] : EVERYONE;
  return { owner: typeof owner === 'string' ? owner : null, createdAt: String(doc[def.list.createdAt]) };
}

/** A list's summary of a document: these fields, in this order, those without a value left out. */
export function pickDefined<Doc, Key extends keyof Doc>(doc: Doc, keys: readonly Key[]): Pick<Doc, Key> {
  return Object.fromEntries(keys.filter((k) => doc[k] !== undefined).map((k) => [k, doc[k]])) as Pick<Doc, Key>;
}

/** The owner column of collections listed whole (accounts, invites). */
export const EVERYONE = '*';
