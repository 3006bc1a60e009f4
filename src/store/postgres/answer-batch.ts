/**
 * The prepared-answer lookups of one turn of the event loop, in one statement. A request
 * that misses the caches makes one round trip to PostgreSQL for its answer; sending each
 * on its own was measured at about a fifth of the server's CPU (node-postgres's send down
 * to the socket's `writev`, docs/performance.md, "The eighth round"). The lookups asked
 * for while one turn runs go out together when it ends (`setImmediate`), as SQLite's reads
 * of a turn share one transaction (store/sqlite/read-batch.ts).
 *
 * One statement sees one committed state, and it selects the content version with every
 * row, so each lookup is still vouched for as one version's (read-versions.ts).
 */
import { batches } from '../../support/batches.ts';

/** Lookups in one statement, at most: more wait for the next. */
export const MAX_BATCH = 64;

/** What a lookup's rows must carry: the batch hands them to their lookups by `n`, in the statement's order. */
export interface NumberedRow {
  /** The lookup's place in the batch, from 1 (PostgreSQL's `WITH ORDINALITY`). */
  readonly n: string | number;
}

/** One statement for the lookups whose operations, keys and formats are given in order; the rows of all of them. */
export type RunBatch<Row extends NumberedRow> = (
  shape: BatchShape,
  operations: string[],
  keys: string[],
  formats: string[],
) => Promise<readonly Row[]>;

export interface BatchShape {
  /** Whether the blobs' one chunks are read along (Snapshot.answer's `readChunks`). */
  readonly chunks: boolean;
}

interface Pending<Row> {
  readonly operation: string;
  readonly key: string;
  readonly format: string;
  readonly resolve: (rows: Row[]) => void;
  readonly reject: (error: unknown) => void;
}

export class AnswerBatch<Row extends NumberedRow> {
  /** By shape: with or without chunks. */
  private readonly queued = new Map<string, { shape: BatchShape; lookups: Pending<Row>[] }>();
  private scheduled = false;

  constructor(private readonly run: RunBatch<Row>) {}

  /** The rows of one prepared answer's lookup, in the statement's order. */
  lookup(shape: BatchShape, operation: string, key: string, format: string): Promise<Row[]> {
    return new Promise((resolve, reject) => {
      const name = shape.chunks ? 'chunks' : 'references';
      let group = this.queued.get(name);
      if (group === undefined) {
        group = { shape, lookups: [] };
        this.queued.set(name, group);
      }
      group.lookups.push({ operation, key, format, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flush);
      }
    });
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const groups = [...this.queued.values()];
    this.queued.clear();
    for (const { shape, lookups } of groups)
      for (const batch of batches(lookups, MAX_BATCH)) void this.send(shape, batch);
  };

  private async send(shape: BatchShape, lookups: Pending<Row>[]): Promise<void> {
    let rows: readonly Row[];
    try {
      rows = await this.run(
        shape,
        lookups.map((l) => l.operation),
        lookups.map((l) => l.key),
        lookups.map((l) => l.format),
      );
    } catch (error) {
      for (const lookup of lookups) lookup.reject(error);
      return;
    }
    const each: Row[][] = lookups.map(() => []);
    for (const row of rows) each[Number(row.n) - 1]?.push(row);
    for (const [i, lookup] of lookups.entries()) lookup.resolve(each[i]!);
  }
}
