/**
 * Every environment variable the settings read has a row in one of the README's
 * configuration tables, and every row names a variable the settings read.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { settingsSource } from './support/settings-source.ts';

const read = new Set(settingsSource().match(/\bSCOOP_[A-Z_]*[A-Z]\b/g));
const rows = new Set(
  readFileSync('README.md', 'utf8')
    .split('\n')
    .map((line) => /^\| `(SCOOP_[A-Z_]+)` \|/.exec(line)?.[1])
    .filter((name) => name !== undefined),
);

test('the README documents every SCOOP_ variable the settings read', () => {
  assert.ok(read.size > 30, `only ${read.size} variables found in settings.ts`);
  assert.deepEqual(
    [...read].filter((name) => !rows.has(name)),
    [],
  );
});

test('every SCOOP_ variable in the README tables is one the settings read', () => {
  assert.deepEqual(
    [...rows].filter((name) => !read.has(name)),
    [],
  );
});
