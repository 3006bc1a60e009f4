/** Opening a SQLite file that other processes may be opening at the same moment. */
import Database from 'better-sqlite3';

/** How long opening keeps retrying SQLite's immediate SQLITE_BUSY (below). */
const OPEN_RETRY_MS = 5_000;

export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** A synchronous pause: opening happens at start-up, before anything is served. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Opens `file` (busy timeout `timeoutMs`) and runs `setup` on it (pragmas, schema),
 * returning both. Processes opening a new file together (workers, instances, a server and
 * `scoop import`) can meet while it is switched to WAL: SQLite then answers SQLITE_BUSY at
 * once, without waiting (its deadlock rule, sqlite.org/c3ref/busy_handler.html), so a busy
 * attempt is closed and made again for up to OPEN_RETRY_MS. Other errors are thrown.
 */
export function openSqliteFile<T>(
  file: string,
  timeoutMs: number,
  setup: (db: Database.Database) => T,
): { db: Database.Database; prepared: T } {
  const deadline = Date.now() + OPEN_RETRY_MS;
  for (;;) {
    const db = new Database(file, { timeout: timeoutMs });
    try {
      return { db, prepared: setup(db) };
    } catch (error) {
      db.close();
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      pause(10 + Math.random() * 40);
    }
  }
}
