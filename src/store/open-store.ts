/**
 * Opens the store a `--db` / `SCOOP_DB` value names, picking the database by its form: a
 * `postgres://` or `postgresql://` URL is PostgreSQL, anything else a SQLite file path
 * (optionally written `sqlite:PATH`). Either is migrated as it opens unless told not to.
 */

import { existsSync } from 'node:fs';
import type { CacheObserver } from '../cache/observer.ts';
import { isBusy } from '../support/sqlite-file.ts';
import { type ContentStore, StoreLocationError } from './content-store.ts';
import { isPostgresUrl } from './postgres/url.ts';
import { SqliteStore } from './sqlite/sqlite-store.ts';

export { StoreLocationError };

export interface OpenOptions {
  /** A serving process fails fast on a locked or unreachable store instead of waiting. */
  readonly serving?: boolean;
  /** Told about every record-cache lookup (for metrics). */
  readonly cacheObserver?: CacheObserver;
  readonly cacheBytes?: number;
  /** Apply pending migrations on opening (default true). A SQLite file is always migrated. */
  readonly migrate?: boolean;
  /** Told about connection trouble noticed in the background (PostgreSQL). */
  readonly onBackgroundError?: (error: unknown) => void;
  /** Whether a SQLite file that does not exist yet is created (default true). */
  readonly create?: boolean;
  /** Told when a new SQLite file was created. */
  readonly onCreated?: (file: string) => void;
  /**
   * The process only imports and reads nothing while it does (`scoop import`): a SQLite
   * file it creates gets its first import through a rollback journal (SqliteStore).
   */
  readonly importing?: boolean;
}

/** What the file system or SQLite say when a path cannot hold a store: the operator's setting, not a crash. */
const UNUSABLE = new Set([
  'SQLITE_CANTOPEN',
  'SQLITE_NOTADB',
  'SQLITE_READONLY',
  'SQLITE_CORRUPT',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'EISDIR',
  'ENOENT',
  'ENAMETOOLONG',
]);

function openSqlite(
  file: string,
  options: OpenOptions,
  settings: ConstructorParameters<typeof SqliteStore>[1],
): SqliteStore {
  const exists = file === ':memory:' || existsSync(file);
  if (!exists && options.create === false)
    throw new StoreLocationError(`there is no store at ${file}; check --db / SCOOP_DB`);
  let store: SqliteStore;
  try {
    store = new SqliteStore(file, {
      ...settings,
      ...(options.importing && !exists ? { newForImport: true } : {}),
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (isBusy(error)) {
      throw new StoreLocationError(
        `the store ${file} stayed locked by another process (as, e.g., the first import into a new file keeps it until it ends); try again when that has finished`,
      );
    }
    if (typeof code !== 'string' || !UNUSABLE.has(code)) throw error;
    throw new StoreLocationError(
      `cannot open the store ${file} (${code}: ${(error as Error).message}); set --db / SCOOP_DB to a file this user can create and write`,
    );
  }
  if (!exists) options.onCreated?.(file);
  return store;
}

export async function openStore(location: string, options: OpenOptions = {}): Promise<ContentStore> {
  const cache = {
    ...(options.cacheObserver ? { cacheObserver: options.cacheObserver } : {}),
    ...(options.cacheBytes !== undefined ? { cacheBytes: options.cacheBytes } : {}),
  };
  if (isPostgresUrl(location)) {
    // Loaded only here: node-postgres would add about 70 ms to every SQLite command's start.
    const { PostgresStore } = await import('./postgres/postgres-store.ts');
    return PostgresStore.open(location, {
      ...cache,
      ...(options.serving ? { connectTimeoutMs: 2000 } : {}),
      ...(options.migrate === false ? { migrate: false } : {}),
      ...(options.onBackgroundError ? { onBackgroundError: options.onBackgroundError } : {}),
    });
  }
  const file = location.startsWith('sqlite:') ? location.slice('sqlite:'.length) : location;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file))
    throw new StoreLocationError(
      `Unknown database URL scheme in ${location}; use a SQLite file path or a postgres:// URL`,
    );
  return openSqlite(file, options, { ...(options.serving ? { busyTimeoutMs: 250 } : {}), ...cache });
}
