/**
 * One read of a store, vouched for as one content version with as few statements as it
 * allows, without a transaction (better-sqlite3's cannot span awaits; PostgreSQL's costs
 * two round trips). A statement sees one committed state (SQLite's autocommit statement,
 * PostgreSQL's READ COMMITTED snapshot), and an import bumps the content version in the
 * transaction that writes its rows, so a statement that selects the version with its rows
 * vouches for itself. Statements that do not are vouched for by the version before the
 * first of them and after the read: unchanged, nothing committed in between. The read is
 * one version's when every version it saw is the same; a prepared answer and its blobs
 * then need no statement of their own for the version (on PostgreSQL, one round trip
 * instead of four or more).
 */
import { StoreUnavailableError } from './content-store.ts';

/** Reads that saw an import commit in their midst are made again, this many times at most. */
const MAX_READ_ATTEMPTS = 5;

export class ReadVersions {
  private first: number | undefined;
  private changed = false;
  private unvouched = false;

  constructor(private readonly versionNow: () => Promise<number>) {}

  /** A statement selected `version` with its rows. */
  saw(version: number): void {
    if (this.first === undefined) this.first = version;
    else if (version !== this.first) this.changed = true;
  }

  /** Before a statement that does not select the version. */
  async beforeUnvouched(): Promise<void> {
    this.unvouched = true;
    // Compared, not assigned: a statement running at the same time may have set `first`.
    if (this.first === undefined) this.saw(await this.versionNow());
  }

  /** After the read: the version it saw, or undefined when an import committed in its midst. */
  async settle(): Promise<number | undefined> {
    if (this.first === undefined || this.unvouched) this.saw(await this.versionNow());
    return this.changed ? undefined : this.first;
  }
}

/** Runs `read` until it saw one version (at most MAX_READ_ATTEMPTS times). */
export async function vouchedRead<T>(
  versionNow: () => Promise<number>,
  read: (versions: ReadVersions) => Promise<T>,
): Promise<{ result: T; version: number }> {
  for (let attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++) {
    const versions = new ReadVersions(versionNow);
    const result = await read(versions);
    const version = await versions.settle();
    if (version !== undefined) return { result, version };
  }
  throw new StoreUnavailableError('the content kept changing while it was read');
}
