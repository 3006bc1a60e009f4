/**
 * Every environment variable the settings read has a row in one of the README's
 * configuration tables, and every row names a variable the settings read.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** Where the serve settings are read (settings.ts and the modules it is split into). */
const SETTINGS_SOURCES = [
  'src/server/settings.ts',
  'src/server/limit-settings.ts',
  'src/server/setting-values.ts',
];

import { test } from 'node:test';

const read = new Set(
  SETTINGS_SOURCES.map((file) => readFileSync(file, 'utf8'))
    .join('\n')
    .match(/\bSCOOP_[A-Z_]*[A-Z]\b/g),
);
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
