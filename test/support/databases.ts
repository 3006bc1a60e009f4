/**
 * The databases the store behaviour tests run against, kysely style: one suite, a loop
 * over DATABASES. SQLite is a file in a scratch folder; PostgreSQL is the machine's own
 * server at SCOOP_TEST_PG_URL (default postgres://127.0.0.1:5432/test, trust auth), where
 * every store gets a fresh schema of its own (a random name) that is dropped when the
 * store is closed.
 *
 * Without a reachable PostgreSQL its tests are skipped, each with the reason, so a run
 * never passes silently without them (test/postgres-half.test.ts adds one loud line);
 * with SCOOP_TEST_PG_REQUIRED=1, as in CI, they fail instead.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import pg from 'pg';
import type { ContentStore } from '../../src/store/content-store.ts';
import { parsePostgresLocation } from '../../src/store/postgres/location.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { dumpDatabase } from './sqlite.ts';

export const PG_URL = process.env.SCOOP_TEST_PG_URL || 'postgres://127.0.0.1:5432/test';
export const PG_REQUIRED = process.env.SCOOP_TEST_PG_REQUIRED === '1';
/** Schemas of test stores: `scoop_t_<unix seconds>_<random>`, so leftovers of a killed run can be told apart by age. */
const SCHEMA_PREFIX = 'scoop_t_';
const LEFTOVER_AGE_S = 3600;

export type Dump = Record<string, unknown[]>;

/** A place for a store, for a process to open (`--db`), with nothing created yet. */
export interface TestLocation {
  /** What `--db` / SCOOP_DB says for it. */
  readonly location: string;
  /** Every row of every table, each table ordered by all its columns. */
  dump(): Promise<Dump>;
  /** Removes the file or drops the schema. */
  dispose(): Promise<void>;
}

export interface TestStore extends TestLocation {
  readonly store: ContentStore;
  /** Closes the store, then disposes of its location. */
  close(): Promise<void>;
}

export interface TestDatabase {
  readonly name: 'sqlite' | 'postgres';
  /** Why this database's tests do not run here; undefined when they do. */
  readonly skip: string | undefined;
  /** node:test's `test`, skipped with `skip` as the reason where this database is not reachable. */
  test(name: string, fn: (t: TestContext) => void | Promise<void>): void;
  newLocation(): Promise<TestLocation>;
  /** A new, empty, migrated store at a new location. */
  open(): Promise<TestStore>;
  /** Another store instance on an existing location (as a second process would open it); the caller closes it. */
  attach(location: string): Promise<ContentStore>;
}

/** A PostgreSQL connection for the tests' own statements (creating, dumping, dropping schemas). */
export async function withPg<T>(use: (client: pg.Client) => Promise<T>, url = PG_URL): Promise<T> {
  const client = new pg.Client({ ...parsePostgresLocation(url).config, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Undefined when PostgreSQL answers; otherwise why not. Also drops schemas a killed run left behind. */
async function probePostgres(): Promise<string | undefined> {
  try {
    await withPg(async (client) => {
      const { rows } = await client.query<{ nspname: string }>(
        "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'scoop\\_t\\_%'",
      );
      const cutoff = Date.now() / 1000 - LEFTOVER_AGE_S;
      for (const { nspname } of rows) {
        const born = Number(nspname.slice(SCHEMA_PREFIX.length).split('_')[0]);
        if (born < cutoff) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
      }
    });
    return undefined;
  } catch (error) {
    const code = (error as { code?: string }).code;
    return `no PostgreSQL at ${PG_URL} (${code ?? (error as Error).message})`;
  }
}

/** Why the PostgreSQL half does not run here; undefined when it does (or must: SCOOP_TEST_PG_REQUIRED=1). */
export const PG_UNREACHABLE = await probePostgres();
const pgSkip =
  PG_UNREACHABLE && !PG_REQUIRED
    ? `PostgreSQL half NOT RUN: ${PG_UNREACHABLE}; start it, or set SCOOP_TEST_PG_URL`
    : undefined;

/** A fresh schema's URL (the schema itself is created by migrating, or by `create`). */
export function newSchemaUrl(extra: Readonly<Record<string, string>> = {}): { url: string; schema: string } {
  if (PG_UNREACHABLE) {
    const required = PG_REQUIRED ? ', and SCOOP_TEST_PG_REQUIRED=1 requires it' : '';
    throw new Error(`PostgreSQL is unreachable: ${PG_UNREACHABLE}${required}`);
  }
  const schema = `${SCHEMA_PREFIX}${Math.floor(Date.now() / 1000)}_${randomBytes(5).toString('hex')}`;
  const url = new URL(PG_URL);
  url.searchParams.set('schema', schema);
  for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
  return { url: url.toString(), schema };
}

export async function dumpSchema(schema: string): Promise<Dump> {
  return withPg(async (client) => {
    const tables = await client.query<{ table_name: string; columns: number }>(
      `SELECT t.table_name, count(c.column_name)::int AS columns
       FROM information_schema.tables t JOIN information_schema.columns c USING (table_schema, table_name)
       WHERE t.table_schema = $1 AND t.table_type = 'BASE TABLE'
       GROUP BY t.table_name ORDER BY t.table_name`,
      [schema],
    );
    const dump: Dump = {};
    for (const { table_name: table, columns } of tables.rows) {
      const order = Array.from({ length: columns }, (_, i) => i + 1).join(', ');
      dump[table] = (await client.query(`SELECT * FROM "${schema}"."${table}" ORDER BY ${order}`)).rows;
    }
    return dump;
  });
}

export async function dropSchema(schema: string): Promise<void> {
  await withPg((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

function database(
  name: TestDatabase['name'],
  skip: string | undefined,
  newLocation: () => Promise<TestLocation>,
  openAt: (location: string) => Promise<ContentStore>,
): TestDatabase {
  return {
    name,
    skip,
    test: (title, fn) => {
      test(title, { skip: skip ?? false }, fn);
    },
    newLocation,
    attach: openAt,
    async open() {
      const place = await newLocation();
      const store = await openAt(place.location);
      return {
        ...place,
        store,
        async close() {
          await store.close().catch(() => undefined);
          await place.dispose();
        },
      };
    },
  };
}

export const SQLITE: TestDatabase = database(
  'sqlite',
  undefined,
  async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'scoop-db-'));
    const file = path.join(dir, 'scoop.db');
    return {
      location: file,
      dump: async () => dumpDatabase(file),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  async (file) => new SqliteStore(file),
);

export const POSTGRES: TestDatabase = database(
  'postgres',
  pgSkip,
  async () => {
    const { url, schema } = newSchemaUrl();
    return { location: url, dump: () => dumpSchema(schema), dispose: () => dropSchema(schema) };
  },
  (url) => PostgresStore.open(url),
);

export const DATABASES: readonly TestDatabase[] = [SQLITE, POSTGRES];
