/**
 * What each command loads as it starts, in the build `bin/scoop.js` runs (built here with
 * scripts/build.mjs's options into a folder of its own): the commands that never serve must
 * not load the server's dependencies, nor node-postgres unless the store is PostgreSQL, since
 * loading them was about half of a small `scoop import`'s time (docs/performance.md,
 * "The nineteenth round"). Read from esbuild's metafile: the files a command's module
 * imports statically, with the entry's, and the packages they name.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
// @ts-expect-error: a plain JavaScript module of the build, without declarations.
import { BUILD_OPTIONS } from '../scripts/build-options.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The server's dependencies and node-postgres's: none of them for a SQLite command that does not serve. */
const HEAVY = ['sharp', 'prom-client', 'pino', 'saxes', 'pg', 'pg-copy-streams'];

let outdir: string;
let outputs: Metafile['outputs'];

before(async () => {
  outdir = mkdtempSync(path.join(tmpdir(), 'scoop-command-start-'));
  const result = await build({
    ...BUILD_OPTIONS,
    absWorkingDir: ROOT,
    outdir,
    sourcemap: false,
    metafile: true,
  });
  outputs = result.metafile!.outputs;
});

after(() => rmSync(outdir, { recursive: true, force: true }));

/** The output built from `entry` (a source path relative to the repository). */
function outputOf(entry: string): string {
  const found = Object.entries(outputs).find(([, output]) => output.entryPoint === entry);
  assert.ok(found, `no output for ${entry}`);
  return found[0];
}

/** The packages loaded before `files` run: what they import statically, transitively. */
function staticPackages(files: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of outputs[file]?.imports ?? []) {
      if (imported.kind !== 'import-statement') continue;
      if (imported.external) packages.add(imported.path);
      else visit(imported.path);
    }
  };
  for (const file of files) visit(file);
  return packages;
}

function commandPackages(command: string): Set<string> {
  return staticPackages([outputOf('src/cli/main.ts'), outputOf(`src/cli/${command}-command.ts`)]);
}

for (const command of ['import', 'token', 'migrate']) {
  test(`scoop ${command} starts without the server's dependencies or node-postgres`, () => {
    const loaded = commandPackages(command);
    assert.ok(loaded.has('better-sqlite3'), `${command} loads SQLite`);
    assert.deepEqual(
      HEAVY.filter((name) => loaded.has(name)),
      [],
    );
  });
}

test('node-postgres is loaded with the PostgreSQL store, which is loaded only when asked for', () => {
  const store = outputOf('src/store/postgres/postgres-store.ts');
  assert.ok(staticPackages([store]).has('pg'));
  const importers = Object.entries(outputs).flatMap(([file, output]) =>
    output.imports.filter((i) => i.path === store).map((i) => ({ file, kind: i.kind })),
  );
  assert.ok(importers.length > 0);
  for (const { file, kind } of importers)
    assert.equal(kind, 'dynamic-import', `${file} imports it statically`);
});

test('scoop serve loads what it serves with', () => {
  const loaded = commandPackages('serve');
  for (const name of ['sharp', 'prom-client', 'pino', 'saxes']) assert.ok(loaded.has(name), name);
});

test('the entry loads no package: `scoop --version` and `--help` need none', () => {
  const loaded = [...staticPackages([outputOf('src/cli/main.ts')])];
  assert.deepEqual(
    loaded.filter((name) => !name.startsWith('node:')),
    [],
  );
});
