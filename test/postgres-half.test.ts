/**
 * Whether the PostgreSQL half of the suite ran. Without a reachable PostgreSQL, every
 * PostgreSQL test is skipped with the reason, and this file says so in one loud line, so
 * a green run without them is never mistaken for a full one; with
 * SCOOP_TEST_PG_REQUIRED=1 (as .ci/run sets) it fails instead.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PG_REQUIRED, PG_UNREACHABLE, PG_URL } from './support/databases.ts';

if (PG_UNREACHABLE && !PG_REQUIRED) {
  process.stderr.write(
    `\n!!! The PostgreSQL half of the tests was NOT RUN: ${PG_UNREACHABLE}. Start PostgreSQL or set SCOOP_TEST_PG_URL; SCOOP_TEST_PG_REQUIRED=1 makes this a failure. !!!\n\n`,
  );
}

test(
  `PostgreSQL at ${PG_URL} is reachable, so the PostgreSQL half runs`,
  { skip: PG_UNREACHABLE && !PG_REQUIRED ? `NOT RUN: ${PG_UNREACHABLE}` : false },
  () => {
    assert.equal(PG_UNREACHABLE, undefined, `SCOOP_TEST_PG_REQUIRED=1, but ${PG_UNREACHABLE}`);
  },
);
