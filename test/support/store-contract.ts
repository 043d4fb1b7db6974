// One contract suite, run against every read-model store implementation: the embedded
// SQLite store always, MongoDB when MONGODB_URL is set (skipped otherwise). Each run gets
// its own store, initialised and reset before its tests and closed after them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { MongoStore, SqliteStore, type ReadModelStore } from '../../shared/src/infra/store/index.js';

/** Runs `suite` once per store; `store()` is that run's store. `slug` names its database. */
export function storeContract(title: string, slug: string, suite: (store: () => ReadModelStore) => void): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `trawl-${slug}-`));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const mongoUrl = process.env.MONGODB_URL;
  const stores: [name: string, make: () => ReadModelStore, skip: string | false][] = [
    ['sqlite', () => new SqliteStore(path.join(dir, 'rm.sqlite')), false],
    ['mongodb', () => new MongoStore(mongoUrl!, `trawl_${slug}_${process.pid}`), mongoUrl ? false : 'MONGODB_URL not set'],
  ];
  for (const [name, make, skip] of stores) {
    describe(`${title}: ${name}`, { skip }, () => {
      let current: ReadModelStore | undefined;
      before(async () => {
        current = make();
        await current.init();
        await current.reset();
      });
      after(async () => { await current?.close(); });
      suite(() => current!);
    });
  }
}
