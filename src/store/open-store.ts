/** Opens the store a `--db` / `SCOOP_DB` value names: a file path (SQLite) or a URL. */
import type { ContentStore } from './content-store.ts';
import type { CacheObserver } from './record-cache.ts';
import { SqliteStore } from './sqlite/sqlite-store.ts';

export class StoreLocationError extends Error {}

export interface OpenOptions {
  /** A serving process fails fast on a locked store instead of waiting (see SqliteStore). */
  readonly serving?: boolean;
  /** Told about every record-cache lookup (for metrics). */
  readonly cacheObserver?: CacheObserver;
  readonly cacheBytes?: number;
}

export async function openStore(location: string, options: OpenOptions = {}): Promise<ContentStore> {
  if (/^postgres(ql)?:\/\//i.test(location)) {
    throw new StoreLocationError(
      'PostgreSQL stores are not supported by this version; use a SQLite file path.',
    );
  }
  const file = location.startsWith('sqlite:') ? location.slice('sqlite:'.length) : location;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file))
    throw new StoreLocationError(`Unknown database URL scheme in ${location}`);
  return new SqliteStore(file, {
    ...(options.serving ? { busyTimeoutMs: 250 } : {}),
    ...(options.cacheObserver ? { cacheObserver: options.cacheObserver } : {}),
    ...(options.cacheBytes !== undefined ? { cacheBytes: options.cacheBytes } : {}),
  });
}
