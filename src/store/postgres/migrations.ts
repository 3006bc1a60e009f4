/**
 * Versioned schema of the PostgreSQL store and how a schema is brought up to it; the
 * order, the record and the schema version are migration-runner.ts's rules. Each entry
 * runs in its own transaction. The tables are SQLite's (sqlite/migrations.ts) in
 * PostgreSQL's types: bytea for binaries and token hashes, identity columns for ids,
 * bigint where SQLite's integers are 64-bit.
 */
import type pg from 'pg';
import { appliedAt, numbered, pendingMigrations } from '../migration-runner.ts';

export const POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
  INSERT INTO meta (key, value) VALUES ('content_version', '0');
  CREATE TABLE blobs (
    blob_id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    sha256 text NOT NULL UNIQUE,
    size bigint NOT NULL,
    chunk_count integer NOT NULL,
    orphaned_at bigint
  );
  CREATE TABLE blob_chunks (
    blob_id integer NOT NULL REFERENCES blobs (blob_id) ON DELETE CASCADE,
    seq integer NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (blob_id, seq)
  );
  -- Chunks are 256 KiB of already-dense bytes: compressing them again costs and saves nothing.
  ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
  CREATE TABLE records (
    kind text NOT NULL,
    id text NOT NULL,
    doc text NOT NULL,
    blob_id integer REFERENCES blobs (blob_id),
    PRIMARY KEY (kind, id)
  );
  CREATE INDEX records_blob ON records (blob_id) WHERE blob_id IS NOT NULL;
  CREATE TABLE tokens (
    hash bytea PRIMARY KEY,
    label text NOT NULL,
    created_at text NOT NULL,
    last_used_at text,
    revoked_at text
  );
  `,
  `
  CREATE TABLE import_runs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    finished_at text NOT NULL,
    outcome text NOT NULL,
    content_version bigint,
    detail text
  );
  `,
  `
  INSERT INTO meta (key, value) VALUES ('tokens_version', '0');
  `,
  `
  ALTER TABLE blobs ADD COLUMN encoding text NOT NULL DEFAULT 'raw';
  `,
  `
  CREATE TABLE answers (
    operation text NOT NULL,
    key text NOT NULL,
    format text NOT NULL,
    compact bytea NOT NULL,
    indented bytea NOT NULL,
    visible_from bigint,
    visible_until bigint,
    PRIMARY KEY (operation, key)
  );
  -- Read whole on every answer: compressing them would cost each read more than it saves.
  ALTER TABLE answers ALTER COLUMN compact SET STORAGE EXTERNAL;
  ALTER TABLE answers ALTER COLUMN indented SET STORAGE EXTERNAL;
  INSERT INTO meta (key, value) VALUES ('answers_format', '');
  `,
  `
  -- The blobs a prepared answer's fragment refers to, so one statement reads both.
  ALTER TABLE answers ADD COLUMN blob_ids integer[];
  `,
  `
  -- What each import changed of the prepared answers (answer-changes.ts).
  CREATE TABLE content_changes (
    version bigint PRIMARY KEY,
    token text NOT NULL,
    changes text
  );
  `,
];

export const MIGRATIONS = numbered(POSTGRES_MIGRATIONS);

/** Advisory-lock keys are per schema, so deployments sharing a database do not wait on each other. */
export function lockKey(purpose: 'migrate' | 'import', schema: string): string {
  return `scoop:${purpose}:${schema}`;
}

/** The versions recorded as applied; none when the schema was never migrated. */
export async function appliedMigrations(client: pg.ClientBase): Promise<number[]> {
  const { rows } = await client.query<{ present: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
  );
  if (!rows[0]?.present) return [];
  const applied = await client.query<{ version: number }>(
    'SELECT version FROM schema_migrations ORDER BY version',
  );
  return applied.rows.map((r) => r.version);
}

/**
 * Applies what is missing, returning the versions applied now. Instances starting at once
 * all call this: a session advisory lock lets one migrate while the others wait, and then
 * find nothing left to do.
 */
export async function migrate(client: pg.ClientBase, schema: string): Promise<number[]> {
  await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey('migrate', schema)]);
  try {
    // Only when missing: CREATE SCHEMA needs a right on the database that a deployment's
    // user may lack for a schema its administrator created.
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at text NOT NULL)',
    );
    const pending = pendingMigrations(MIGRATIONS, await appliedMigrations(client));
    for (const { sql, version } of pending) {
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [
          version,
          appliedAt(),
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }
    return pending.map((migration) => migration.version);
  } finally {
    await client
      .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey('migrate', schema)])
      .catch(() => undefined);
  }
}
