/**
 * Stores the benchmark measures besides its SQLite baseline (`--store`):
 *
 *   (none given)          PostgreSQL too when one answers at SCOOP_BENCH_PG_URL
 *                         (default postgres://127.0.0.1:5432/test), else a note that it was skipped
 *   --store sqlite        SQLite only
 *   --store postgres      PostgreSQL at SCOOP_BENCH_PG_URL, in a fresh schema dropped afterwards
 *   --store postgres://…  that store as it is (its content is replaced by the bundle's)
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { parsePostgresLocation } from '../src/store/postgres/location.ts';
import { redactLocation } from '../src/store/postgres/url.ts';

export const DEFAULT_PG_URL = 'postgres://127.0.0.1:5432/test';

export interface ExtraStore {
  readonly label: string;
  /** What `--db` says for it. */
  readonly location: string;
  dispose(): Promise<void>;
}

async function withPg<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...parsePostgresLocation(url).config, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A throw-away schema in the database at `base`; the store's migrations create it. */
async function freshPostgres(base: string): Promise<ExtraStore> {
  await withPg(base, (client) => client.query('SELECT 1'));
  const schema = `scoop_bench_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return {
    label: `postgres (${redactLocation(base)}, schema ${schema})`,
    location: url.toString(),
    dispose: () =>
      withPg(base, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)).then(
        () => undefined,
      ),
  };
}

export async function extraStores(
  requested: readonly string[] | undefined,
  notes: string[],
): Promise<ExtraStore[]> {
  const base = process.env.SCOOP_BENCH_PG_URL || DEFAULT_PG_URL;
  if (!requested || requested.length === 0) {
    try {
      return [await freshPostgres(base)];
    } catch (error) {
      notes.push(
        `PostgreSQL not reachable at ${redactLocation(base)} (${(error as Error).message}): not measured`,
      );
      return [];
    }
  }
  const stores: ExtraStore[] = [];
  for (const kind of requested) {
    if (kind === 'sqlite') continue;
    if (kind === 'postgres') stores.push(await freshPostgres(base));
    else stores.push({ label: redactLocation(kind), location: kind, dispose: async () => undefined });
  }
  return stores;
}
