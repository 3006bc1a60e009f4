/**
 * The reads of one turn of the event loop in one read transaction. A statement outside a
 * transaction opens and ends one of its own, and in WAL mode that takes and releases a
 * read lock on the WAL index (two fcntl calls, SQLite's wal.c walTryBeginRead): 7.1 µs for
 * the smallest statement here, 0.9 µs inside a transaction (docs/performance.md, "The
 * eighth round"). So the first read of a turn begins a transaction and the turn's end
 * (setImmediate) commits it: the requests answered in that turn share it.
 *
 * A batch sees the content as of its first read; an import another process commits is seen
 * from the next turn on, which the store's version watch allows for anyway (it reads the
 * versions at most every 20 ms). Writes on the same connection (tokens, a refused import's
 * record, an import into an in-memory store, a change of journal mode) must not run inside
 * it: `end()` first.
 */
import type Database from 'better-sqlite3';

export class ReadBatch {
  private open = false;
  private readonly begin;
  private readonly commit;

  constructor(private readonly db: Database.Database) {
    this.begin = db.prepare('BEGIN');
    this.commit = db.prepare('COMMIT');
  }

  /** Runs `read` in this turn's transaction, beginning it when there is none. */
  read<T>(read: () => T): T {
    if (!this.open && !this.db.inTransaction) {
      this.begin.run();
      this.open = true;
      setImmediate(this.end);
    }
    return read();
  }

  /**
   * Ends the turn's transaction, if one is open: before a write, and at the turn's end. A
   * read transaction has nothing to lose, so one that cannot commit is rolled back.
   */
  readonly end = (): void => {
    if (!this.open) return;
    this.open = false;
    if (!this.db.open || !this.db.inTransaction) return;
    try {
      this.commit.run();
    } catch {
      try {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
      } catch {
        // The connection is unusable: its next statement fails and says so (UNAVAILABLE).
      }
    }
  };
}
