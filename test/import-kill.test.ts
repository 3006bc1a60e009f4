/**
 * An import killed with SIGKILL at random points leaves the store consistent: readers
 * keep seeing one whole generation of content (the previous one, or the new one if the
 * kill came after the commit), and the next import works.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'scoop-kill-'));
const db = path.join(dir, 'scoop.db');
after(() => rmSync(dir, { recursive: true, force: true }));

/** Generation `n`: every name ends in "gen n"; new binaries, so the import has work to do. */
function writeGeneration(n: number): string {
  const folder = path.join(dir, `gen${n}`);
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

function runImport(folder: string, killAfterMs?: number): Promise<number | null> {
  const child = spawn(process.execPath, ['bin/scoop.js', 'import', folder, '--db', db], { stdio: 'ignore' });
  if (killAfterMs !== undefined) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** The generation every record belongs to; fails if records of two generations are mixed. */
async function generationOf(store: SqliteStore): Promise<number> {
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

test(
  'SIGKILL at random points during imports never leaves a mixed or broken store',
  { timeout: 180_000 },
  async () => {
    // Kill times are spread over how long a whole import takes here (process start included),
    // so most kills land mid-import whether the CLI starts from the build or through tsx.
    const first = performance.now();
    assert.equal(await runImport(writeGeneration(1)), 0);
    const importMs = performance.now() - first;
    const reader = new SqliteStore(db);
    let committed = 1;
    let readerChecks = 0;
    let readerFailure: unknown;
    // A reader keeps reading throughout, as a serving instance would.
    const timer = setInterval(() => {
      generationOf(reader)
        .then((gen) => {
          readerChecks++;
          if (gen < committed)
            throw new Error(`reader saw generation ${gen} after ${committed} was committed`);
        })
        .catch((error: unknown) => {
          readerFailure ??= error;
        });
    }, 25);
    try {
      let killed = 0;
      for (let n = 2; n <= 9; n++) {
        const folder = writeGeneration(n);
        const delay = Math.floor(importMs * (0.1 + Math.random() * 0.8));
        const code = await runImport(folder, delay);
        if (code === null) killed++;
        const gen = await generationOf(reader);
        assert.ok(
          gen === committed || gen === n,
          `after the kill: generation ${gen}, expected ${committed} or ${n}`,
        );
        committed = gen;
        const check = new Database(db, { readonly: true });
        assert.equal(check.pragma('integrity_check', { simple: true }), 'ok');
        check.close();
      }
      assert.ok(killed >= 3, `at least some imports were really killed (${killed})`);
      // The store still takes a whole import afterwards.
      assert.equal(await runImport(writeGeneration(10)), 0);
      assert.equal(await generationOf(reader), 10);
      assert.equal(readerFailure, undefined, String(readerFailure));
      assert.ok(readerChecks > 20, `the reader kept reading (${readerChecks} reads)`);
    } finally {
      clearInterval(timer);
      await reader.close();
    }
  },
);
