/**
 * An import killed with SIGKILL at random points leaves the store consistent: readers
 * keep seeing one whole generation of content (the previous one, or the new one if the
 * kill came after the commit), and the next import works. On both databases: SQLite's
 * file passes its integrity check; PostgreSQL rolls back the killed import's transaction
 * and releases its advisory lock when the connection drops, so its session disappears and
 * the next import does not wait forever.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { scoopArgs } from '../bench/node-flags.ts';
import type { ContentStore } from '../src/store/content-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { DATABASES, type TestDatabase, withPg } from './support/databases.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'scoop-kill-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Generation `n`: every name ends in "gen n"; new binaries, so the import has work to do. */
function writeGeneration(n: number): string {
  const folder = path.join(dir, `gen${n}`);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(path.join(folder, 'files'), { recursive: true });
  const anhaenge = Array.from({ length: 24 }, (_, i) => {
    writeFileSync(path.join(folder, 'files', `a${i}.bin`), randomBytes(1024 * 1024));
    return { anhangID: i + 1, file: `files/a${i}.bin`, name: `Anhang ${i} gen ${n}` };
  });
  const bereiche = Array.from({ length: 40 }, (_, i) => ({
    bereichID: i + 1,
    name: `Bereich ${i} gen ${n}`,
  }));
  const artikel = Array.from({ length: 20 }, (_, i) => ({
    artikelID: i + 1,
    text: `Artikel ${i} gen ${n}`,
    bereiche: [i + 1, i + 2],
    anhaenge: [(i % 24) + 1],
  }));
  writeFileSync(
    path.join(folder, 'bundle.json'),
    JSON.stringify({ format: 'scoop-bundle/1', mode: 'replace', bereiche, anhaenge, artikel }),
  );
  return folder;
}

function runImport(db: string, folder: string, killAfterMs?: number): Promise<number | null> {
  const child = spawn(process.execPath, scoopArgs(['import', folder, '--db', db]), { stdio: 'ignore' });
  if (killAfterMs !== undefined) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** The generation every record belongs to; fails if records of two generations are mixed. */
async function generationOf(store: ContentStore): Promise<number> {
  return store.read(async (snapshot) => {
    const names = [
      ...(await snapshot.all('bereiche')).map(
        ({ record }) => (JSON.parse(record.doc) as { name: string }).name,
      ),
      ...(await snapshot.all('anhaenge')).map(
        ({ record }) => (JSON.parse(record.doc) as { name: string }).name,
      ),
      ...(await snapshot.all('artikel')).map(
        ({ record }) => (JSON.parse(record.doc) as { text: string }).text,
      ),
    ];
    const gens = new Set(names.map((name) => Number(/gen (\d+)$/.exec(name)?.[1])));
    assert.equal(gens.size, 1, `one generation, saw ${[...gens].join(', ')}`);
    assert.equal(names.length, 84, 'every record present');
    return [...gens][0]!;
  });
}

/**
 * The generation a serving store sees once it has had its moment to learn of another
 * process's commit (SQLite checks the version every 20 ms; PostgreSQL is told by NOTIFY):
 * right after an import exits, or a kill that landed just after COMMIT, it may not yet.
 */
async function settledGeneration(store: ContentStore): Promise<number> {
  await sleep(100);
  return generationOf(store);
}

/** Sessions of the imports' connections still open on the server (they carry this application_name). */
function importSessions(app: string): Promise<number> {
  return withPg(async (client) => {
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [app],
    );
    return rows[0]!.n;
  });
}

for (const database of DATABASES) {
  test(
    `SIGKILL at random points during imports never leaves a mixed or broken store (${database.name})`,
    { timeout: 180_000, skip: database.skip ?? false },
    (t) => killImports(database, t),
  );
}

async function killImports(database: TestDatabase, t: TestContext): Promise<void> {
  const place = await database.newLocation();
  const app = `scoop_t_kill_${process.pid}`;
  let db = place.location;
  if (database.name === 'postgres') {
    const url = new URL(place.location);
    url.searchParams.set('application_name', app);
    db = url.toString();
  }
  // Kill times are spread over how long a whole import takes here (process start included),
  // so most kills land mid-import whether the CLI starts from the build or through tsx.
  const first = performance.now();
  assert.equal(await runImport(db, writeGeneration(1)), 0);
  const importMs = performance.now() - first;
  const reader = await database.attach(place.location);
  let committed = 1;
  let readerChecks = 0;
  let readerFailure: unknown;
  // A reader keeps reading throughout, as a serving instance would.
  const timer = setInterval(() => {
    generationOf(reader)
      .then((gen) => {
        readerChecks++;
        if (gen < committed) throw new Error(`reader saw generation ${gen} after ${committed} was committed`);
      })
      .catch((error: unknown) => {
        readerFailure ??= error;
      });
  }, 25);
  try {
    let killed = 0;
    let keptPrevious = 0;
    for (let n = 2; n <= 9; n++) {
      const folder = writeGeneration(n);
      const delay = Math.floor(importMs * (0.1 + Math.random() * 0.8));
      const code = await runImport(db, folder, delay);
      if (code === null) killed++;
      if (database.name === 'postgres') {
        // The server notices the dropped connection, rolls back and frees the lock.
        const deadline = Date.now() + 10_000;
        while ((await importSessions(app)) > 0) {
          assert.ok(Date.now() < deadline, "the killed import's session ended within 10 s");
          await sleep(50);
        }
      }
      const gen = await settledGeneration(reader);
      assert.ok(
        gen === committed || gen === n,
        `after the kill: generation ${gen}, expected ${committed} or ${n}`,
      );
      if (gen !== n) keptPrevious++;
      committed = gen;
      if (database.name === 'sqlite') {
        const check = new Database(db, { readonly: true });
        assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
        check.close();
      }
    }
    t.diagnostic(`${killed} of 8 imports killed, ${keptPrevious} of them before their commit`);
    assert.ok(killed >= 3, `at least some imports were really killed (${killed})`);
    // The store still takes a whole import afterwards.
    assert.equal(await runImport(db, writeGeneration(10)), 0);
    assert.equal(await settledGeneration(reader), 10);
    assert.equal(readerFailure, undefined, String(readerFailure));
    assert.ok(readerChecks > 20, `the reader kept reading (${readerChecks} reads)`);
  } finally {
    clearInterval(timer);
    await reader.close();
    await place.dispose();
  }
}

/**
 * Runs an import into a new SQLite file and kills it `extraMs` after the file has grown past
 * a few MB, which only the import's transaction does (its 24 MB of files), so the kill
 * lands while the import writes (or, late, after its commit). A journal appears earlier
 * too, for a moment, when the new file is switched to WAL mode: that is not the import.
 */
function killWhileWriting(file: string, folder: string, extraMs: number): Promise<number | null> {
  const child = spawn(process.execPath, scoopArgs(['import', folder, '--db', file]), {
    stdio: 'ignore',
  });
  const watch = setInterval(() => {
    if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) < 4 * 1024 * 1024) return;
    clearInterval(watch);
    setTimeout(() => child.kill('SIGKILL'), extraMs);
  }, 2);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearInterval(watch);
      resolve(code);
    }),
  );
}

test(
  'SIGKILL while the first import writes a new SQLite file (rollback journal) leaves it empty or whole',
  {
    timeout: 180_000,
  },
  async (t) => {
    const folder = writeGeneration(1);
    let midWrite = 0;
    for (let round = 0; round < 6; round++) {
      const file = path.join(dir, `first-${round}.db`);
      const code = await killWhileWriting(file, folder, Math.floor(Math.random() * 10));
      const journaled = existsSync(`${file}-journal`);
      if (code === null && journaled) midWrite++;
      // Opening the file rolls a killed import's hot journal back, and sets WAL mode.
      const store = new SqliteStore(file);
      try {
        const areas = await store.read(async (snapshot) => snapshot.all('bereiche'));
        if (journaled) assert.equal(areas.length, 0, 'a killed import is rolled back');
        else if (areas.length > 0) assert.equal(await generationOf(store), 1);
      } finally {
        await store.close();
      }
      const check = new Database(file, { readonly: true });
      assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
      assert.equal(check.pragma('journal_mode', { simple: true }), 'wal');
      check.close();
      assert.equal(await runImport(file, folder), 0, 'the next import into it works');
    }
    t.diagnostic(`${midWrite} of 6 first imports killed while their journal was there`);
    assert.ok(midWrite >= 4, `most imports were killed mid-write (${midWrite})`);
  },
);
