/**
 * The migration rules on their own (sqlite/ and postgres/ apply them under their locks;
 * sqlite-store.test.ts and postgres-store.test.ts show that under concurrent start-up).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appliedAt, numbered, pendingMigrations, schemaStatus, schemaVersionOf } from './migration-runner.ts';

const MIGRATIONS = numbered(['CREATE a', 'CREATE b', 'ALTER a', 'INSERT c']);

test('migrations are numbered from 1 in the order written', () => {
  assert.deepEqual(
    MIGRATIONS.map((m) => [m.version, m.sql]),
    [
      [1, 'CREATE a'],
      [2, 'CREATE b'],
      [3, 'ALTER a'],
      [4, 'INSERT c'],
    ],
  );
});

test('what is pending is what was not applied, in version order whatever order the record gives', () => {
  const versions = (applied: number[]) => pendingMigrations(MIGRATIONS, applied).map((m) => m.version);
  assert.deepEqual(versions([]), [1, 2, 3, 4]);
  assert.deepEqual(versions([2, 1]), [3, 4]);
  assert.deepEqual(versions([3, 1]), [2, 4], 'a gap is filled');
  assert.deepEqual(versions([4, 3, 2, 1]), []);
  assert.deepEqual(versions([1, 2, 3, 4, 5]), [], 'a version this build does not know asks for nothing');
});

test('the schema version is the applied versions counted from 1 without a gap', () => {
  assert.equal(schemaVersionOf([]), 0);
  assert.equal(schemaVersionOf([1, 2, 3]), 3);
  assert.equal(schemaVersionOf([3, 1, 2]), 3);
  assert.equal(schemaVersionOf([1, 3]), 1);
  assert.equal(schemaVersionOf([2, 3]), 0);
});

test('a schema is migrated when it has every migration this build knows', () => {
  assert.deepEqual(schemaStatus(MIGRATIONS, []), {
    schemaVersion: 0,
    latestSchemaVersion: 4,
    migrated: false,
  });
  assert.deepEqual(schemaStatus(MIGRATIONS, [1, 2, 4]), {
    schemaVersion: 2,
    latestSchemaVersion: 4,
    migrated: false,
  });
  assert.deepEqual(schemaStatus(MIGRATIONS, [1, 2, 3, 4]), {
    schemaVersion: 4,
    latestSchemaVersion: 4,
    migrated: true,
  });
});

test('a migration is recorded with when it was applied, as an ISO time', () => {
  assert.equal(appliedAt(new Date(Date.UTC(2026, 10, 24, 12, 0, 0))), '2026-11-24T12:00:00.000Z');
  assert.match(appliedAt(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});
