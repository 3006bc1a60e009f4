/**
 * How a SQLite store learns that another process imported or changed a token: it reads
 * both versions from the file, at most every READ_EVERY_MS. An import or a token change
 * shows up that much later at worst, and a request does no database work on a cache hit.
 * (PostgreSQL is told instead: postgres/version-watch.ts.)
 */
import type Database from 'better-sqlite3';
import { unavailableOnIoError } from './connection-errors.ts';

const READ_EVERY_MS = 20;

export interface KnownVersions {
  /** The content version. */
  readonly version: number;
  readonly tokens: number;
}

export class SqliteVersionWatch {
  private known: KnownVersions = { version: -1, tokens: -1 };
  private readAt = Number.NEGATIVE_INFINITY;
  private readonly versions;

  constructor(db: Database.Database) {
    this.versions = db.prepare<[], { key: string; value: string }>(
      "SELECT key, value FROM meta WHERE key IN ('content_version', 'tokens_version')",
    );
  }

  /** Both versions, read again when the last reading is older than READ_EVERY_MS. */
  current(): KnownVersions {
    const now = performance.now();
    if (now - this.readAt < READ_EVERY_MS) return this.known;
    const rows = unavailableOnIoError(() => this.versions.all());
    const value = (key: string) => Number(rows.find((row) => row.key === key)?.value ?? 0);
    this.known = { version: value('content_version'), tokens: value('tokens_version') };
    this.readAt = now;
    return this.known;
  }

  /** better-sqlite3 is synchronous: the versions can always be told at once, or not at all (an I/O error). */
  peek(): KnownVersions | undefined {
    try {
      return this.current();
    } catch {
      return undefined;
    }
  }

  /** This process sees its own import or token change at once: the next call reads the file. */
  forget(): void {
    this.readAt = Number.NEGATIVE_INFINITY;
  }
}
