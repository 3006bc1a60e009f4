/** What only the SQLite store has: the page size of the file it creates. */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { bundleJson, importFolder, scratch } from '../../../test/support/bundles.ts';
import { SqliteStore } from './sqlite-store.ts';

const s = scratch();

function pageSize(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return Number(db.pragma('page_size', { simple: true }));
  } finally {
    db.close();
  }
}

test('a new file gets 64 KiB pages, so a 256 KiB chunk row is 4 page reads', async () => {
  const file = s.dbPath();
  const store = new SqliteStore(file);
  await store.close();
  assert.equal(pageSize(file), 65536);
});

test('a file made with other pages keeps them, and is served and imported into as before', async () => {
  const file = s.dbPath();
  mkdirSync(path.dirname(file), { recursive: true });
  const made = new Database(file);
  made.pragma('page_size = 4096');
  made.exec('VACUUM');
  made.close();
  const store = new SqliteStore(file);
  try {
    const bytes = Buffer.alloc(300_000, 7);
    await importFolder(
      store,
      s.bundle(bundleJson({ anhaenge: [{ anhangID: 1, file: 'a.bin' }] }), { 'a.bin': bytes }),
    );
    const record = await store.read((snapshot) => snapshot.get('anhaenge', '1'));
    const parts: Buffer[] = [];
    for await (const chunk of record!.blob!.source.chunks()) parts.push(Buffer.from(chunk));
    assert.ok(Buffer.concat(parts).equals(bytes));
  } finally {
    await store.close();
  }
  assert.equal(pageSize(file), 4096);
});
