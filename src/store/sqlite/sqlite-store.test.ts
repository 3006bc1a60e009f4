/** What only the SQLite store has: the page size of the file it creates, opening a new file from several processes, and a new file's first import without the log. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { bundleJson, importFolder, scratch } from '../../../test/support/bundles.ts';
import { atTheSameInstant } from '../../../test/support/same-instant.ts';
import { SQLITE_MIGRATIONS } from './migrations.ts';
import { SqliteStore } from './sqlite-store.ts';

const s = scratch();

/** What a read-only connection of its own reads from the file. */
function readOnly<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const pragmaOf = (file: string, name: string) =>
  readOnly(file, (db) => String(db.pragma(name, { simple: true })));

const pageSize = (file: string) => Number(pragmaOf(file, 'page_size'));

test('a new file gets 16 KiB pages: a point lookup copies 16 KiB, a 256 KiB chunk row is 16 page reads', async () => {
  const file = s.dbPath();
  const store = new SqliteStore(file);
  await store.close();
  assert.equal(pageSize(file), 16384);
});

test("the connection requests read through keeps SQLite's 2 MiB page cache, not better-sqlite3's 16", async () => {
  const file = s.dbPath();
  const store = new SqliteStore(file);
  try {
    // The connection is the store's own: nothing else shows its pragmas.
    const { db } = store as unknown as { db: Database.Database };
    assert.equal(db.pragma('cache_size', { simple: true }), -2048);
    // A connection opened without it gets better-sqlite3's default: the setting is not moot.
    assert.equal(pragmaOf(file, 'cache_size'), '-16000');
  } finally {
    await store.close();
  }
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

test('processes opening a new file at the same instant all get a migrated store', async () => {
  // Before: one of them failed on the WAL switch (SQLITE_BUSY at once) or on a migration
  // another had just applied ("table meta already exists").
  const base = s.dir();
  const results = await atTheSameInstant({
    processes: 4,
    rounds: 8,
    setup: `const { SqliteStore } = await import(${JSON.stringify(path.resolve('src/store/sqlite/sqlite-store.ts'))});`,
    body: `const store = new SqliteStore(${JSON.stringify(base)} + '/' + round + '.db', { busyTimeoutMs: 250 });
      await store.close();`,
  });
  for (const r of results) assert.equal(r.code, 0, r.stderr);
  const db = new Database(path.join(base, '0.db'), { readonly: true });
  try {
    const versions = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
    assert.equal(new Set(versions.map((row) => JSON.stringify(row))).size, versions.length);
    assert.ok(versions.length > 0);
  } finally {
    db.close();
  }
});

test('a file that is up to date opens while another connection holds the write lock (an import)', async () => {
  const file = path.join(s.dir(), 'locked.db');
  await new SqliteStore(file).close();
  const importing = new Database(file);
  importing.exec('BEGIN IMMEDIATE');
  try {
    const started = Date.now();
    const store = new SqliteStore(file, { busyTimeoutMs: 250 });
    await store.close();
    assert.ok(Date.now() - started < 250, 'it did not wait for the lock');
  } finally {
    importing.exec('ROLLBACK');
    importing.close();
  }
});

/** Whether the file has a write-ahead log beside it now (WAL mode with a connection open). */
const hasLog = (file: string) => existsSync(`${file}-wal`);

const journalMode = (file: string) => pragmaOf(file, 'journal_mode');

const oneArea = (name: string) => bundleJson({ bereiche: [{ bereichID: 1, name }] });

test('the first import into a file `scoop import` created is written without the log, then the file is in WAL mode', async () => {
  const file = s.dbPath();
  const store = new SqliteStore(file, { newForImport: true });
  try {
    const logDuring: boolean[] = [];
    await store.importTransaction(async (tx) => {
      logDuring.push(hasLog(file));
      await tx.bumpContentVersion();
      logDuring.push(hasLog(file));
    });
    assert.deepEqual(logDuring, [false, false]);
    await importFolder(store, s.bundle(oneArea('eins')));
    const second: boolean[] = [];
    await store.importTransaction(async () => {
      second.push(hasLog(file));
    });
    assert.deepEqual(second, [true], 'later imports go through the log');
  } finally {
    await store.close();
  }
  assert.equal(journalMode(file), 'wal');
});

test('a first import while another connection has the new file open goes through the log', async () => {
  const file = s.dbPath();
  const store = new SqliteStore(file, { newForImport: true });
  const server = new SqliteStore(file);
  try {
    let journaled = false;
    await importFolder(store, s.bundle(oneArea('eins')), {
      onProgress: () => {
        journaled ||= existsSync(`${file}-journal`);
      },
    });
    assert.equal(journaled, false, 'no rollback journal: the log was used');
    const area = await server.read(async (snapshot) => snapshot.get('bereiche', '1'));
    assert.equal((JSON.parse(area!.doc) as { name: string }).name, 'eins');
  } finally {
    await server.close();
    await store.close();
  }
  assert.equal(journalMode(file), 'wal');
});

test('a first import without the log that fails leaves the new file empty, in WAL mode, ready for the next', async () => {
  const file = s.dbPath();
  const store = new SqliteStore(file, { newForImport: true });
  const contentVersion = () =>
    readOnly(file, (db) => db.prepare("SELECT value FROM meta WHERE key = 'content_version'").pluck().get());
  const before = contentVersion();
  try {
    await assert.rejects(
      store.importTransaction(async (tx) => {
        await tx.bumpContentVersion();
        throw new Error('refused halfway');
      }),
      /refused halfway/,
    );
    assert.equal(contentVersion(), before, 'the bumped version was rolled back');
    assert.equal(journalMode(file), 'wal');
    assert.equal(await store.read(async (snapshot) => snapshot.get('bereiche', '1')), undefined);
    await importFolder(store, s.bundle(oneArea('zwei')));
    const area = await store.read(async (snapshot) => snapshot.get('bereiche', '1'));
    assert.equal((JSON.parse(area!.doc) as { name: string }).name, 'zwei');
  } finally {
    await store.close();
  }
});

test("the reads of one turn share a read transaction; a token written in the same turn and another connection's import after it are seen", async () => {
  const file = s.dbPath();
  const store = new SqliteStore(file);
  const other = new SqliteStore(file);
  try {
    const bundle = (name: string) => s.bundle(bundleJson({ bereiche: [{ bereichID: 1, name }] }));
    await importFolder(store, bundle('Erster'));
    const name = async (of: SqliteStore) =>
      JSON.parse((await of.read((snapshot) => snapshot.get('bereiche', '1')))?.doc ?? '{}').name;
    assert.equal(await name(store), 'Erster');
    // Another connection writes, then this one, both in the turn of the read: this write
    // does not run in the turn's read transaction (its snapshot is stale: SQLITE_BUSY_SNAPSHOT).
    await other.addToken(Buffer.alloc(32, 2), 'theirs', new Date().toISOString());
    await store.addToken(Buffer.alloc(32, 1), 'same turn', new Date().toISOString());
    await importFolder(other, bundle('Zweiter'));
    await new Promise<void>((resolve) => setTimeout(resolve, 30));
    assert.equal(await name(store), 'Zweiter');
    assert.equal(await name(other), 'Zweiter', 'an import is seen by its own process at once');
  } finally {
    await other.close();
    await store.close();
  }
});

test('a file of the fifth schema version keeps its records as they move to a table of rowids (migration 6)', async () => {
  const file = s.dbPath();
  mkdirSync(path.dirname(file), { recursive: true });
  const old = new Database(file);
  old.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
  for (const [i, sql] of SQLITE_MIGRATIONS.slice(0, 5).entries()) {
    old.exec(sql);
    old.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(i + 1, 'then');
  }
  old.prepare("INSERT INTO blobs (sha256, size, chunk_count, encoding) VALUES ('ab', 3, 1, 'raw')").run();
  old.prepare('INSERT INTO blob_chunks (blob_id, seq, data) VALUES (1, 0, ?)').run(Buffer.from('abc'));
  const long = { bereichID: 2, name: 'ä'.repeat(9_000) };
  const insert = old.prepare('INSERT INTO records (kind, id, doc, blob_id) VALUES (?, ?, ?, ?)');
  insert.run('bereiche', '1', JSON.stringify({ bereichID: 1, name: 'Rathaus' }), null);
  insert.run('bereiche', '2', JSON.stringify(long), null);
  insert.run(
    'anhaenge',
    '5',
    JSON.stringify({
      anhangID: 5,
      filename: 'a.txt',
      name: 'A',
      beschreibung: 'B',
      mimetype: 'text/plain',
      sort: 1,
    }),
    1,
  );
  old.close();

  const store = new SqliteStore(file);
  try {
    const read = await store.read(async (snapshot) => ({
      all: (await snapshot.all('bereiche')).map(({ id, record }) => [id, JSON.parse(record.doc)]),
      anhang: await snapshot.get('anhaenge', '5'),
    }));
    assert.deepEqual(read.all, [
      ['1', { bereichID: 1, name: 'Rathaus' }],
      ['2', long],
    ]);
    assert.equal(read.anhang?.blob?.id, 1);
    // Imported into as before: a record replaced, one added.
    await importFolder(
      store,
      s.bundle(
        bundleJson({
          mode: 'upsert',
          bereiche: [
            { bereichID: 1, name: 'Neu' },
            { bereichID: 3, name: 'Drei' },
          ],
        }),
      ),
    );
    const names = await store.read(async (snapshot) =>
      (await snapshot.all('bereiche')).map(({ record }) => JSON.parse(record.doc).name),
    );
    assert.deepEqual(names, ['Neu', long.name, 'Drei']);
  } finally {
    await store.close();
  }
  readOnly(file, (db) => {
    const schema = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'records'").get() as {
      sql: string;
    };
    assert.doesNotMatch(schema.sql, /WITHOUT ROWID/);
    const indexes = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' ORDER BY name")
      .all();
    assert.deepEqual(indexes, [{ name: 'records_blob' }, { name: 'records_key' }]);
    assert.deepEqual(db.prepare('PRAGMA foreign_key_check').all(), []);
  });
});

test('the answers keep the column an older build reads (a rolling deploy), empty', async () => {
  const file = s.dbPath();
  const store = new SqliteStore(file);
  try {
    await importFolder(store, s.bundle(bundleJson({ bereiche: [{ bereichID: 1, name: 'Rathaus' }] })));
  } finally {
    await store.close();
  }
  // The statement the build before this one prepares as it opens the store.
  const rows = readOnly(file, (db) =>
    db.prepare<[], { fragment: Buffer }>('SELECT a.indented AS fragment FROM answers a').all(),
  );
  assert.ok(rows.length > 0);
  for (const { fragment } of rows) assert.equal(fragment.length, 0);
});
