/**
 * Whether the PostgreSQL half of the suite ran. Without a reachable PostgreSQL, every
 * PostgreSQL test is skipped with the reason, and `npm test` ends with one loud line
 * saying so (test/support/postgres-half-reporter.mjs), so a green run without them is never
 * mistaken for a full one; with SCOOP_TEST_PG_REQUIRED=1 (as .ci/run sets) this file fails
 * instead.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { PG_UNREACHABLE, PG_URL, POSTGRES } from './support/databases.ts';

test(
  `PostgreSQL at ${PG_URL} is reachable, so the PostgreSQL half runs`,
  { skip: POSTGRES.skip ?? false },
  () => {
    assert.equal(PG_UNREACHABLE, undefined, `SCOOP_TEST_PG_REQUIRED=1, but ${PG_UNREACHABLE}`);
  },
);

test('without PostgreSQL, the last line of npm test says that its half was not run', async () => {
  // The reporter options of package.json's test command, as they stand.
  const script = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { test: string } }).scripts
    .test;
  const reporters: string[] = script.match(/--test-reporter(?:-destination)?=\S+/g) ?? [];
  assert.ok(
    reporters.includes('--test-reporter=./test/support/postgres-half-reporter.mjs'),
    `npm test uses the reporter: ${script}`,
  );
  // A PostgreSQL test file, then one sorted after it, against a port where nothing listens.
  const files = ['src/store/postgres/location.test.ts', 'src/xml/escape.test.ts'];
  // Not NODE_TEST_CONTEXT either: with it, node --test would report to this run instead of printing.
  const { SCOOP_TEST_PG_REQUIRED: _required, NODE_TEST_CONTEXT: _context, ...env } = process.env;
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', ...reporters, ...files], {
      env: { ...env, SCOOP_TEST_PG_URL: 'postgres://127.0.0.1:1/test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`exit ${code}:\n${text}`))));
  });
  const lines = output.trimEnd().split('\n');
  assert.match(
    lines.at(-1)!,
    /^!!! The PostgreSQL half of the tests was NOT RUN \(\d+ tests skipped\): no PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/test/,
  );
  assert.ok(
    output.includes('# PostgreSQL half NOT RUN: no PostgreSQL'),
    'each skipped test names the reason too',
  );
  assert.ok(output.lastIndexOf('duration_ms') < output.lastIndexOf('!!!'), "spec's summary came before it");
});
