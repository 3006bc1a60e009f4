/**
 * The record of imports (content-store.ts ImportRun) in the `import_runs` table: a
 * committed one is written by its import transaction, a refused one here, in a
 * transaction of its own after the import's was rolled back.
 */
import type Database from 'better-sqlite3';
import type { ImportRun, ImportRuns } from '../content-store.ts';
import { unavailableOnIoError } from './connection-errors.ts';

export const RECORD_RUN =
  'INSERT INTO import_runs (finished_at, outcome, content_version, detail) VALUES (?, ?, ?, ?)';

interface RunRow {
  outcome: string;
  finished_at: string;
  content_version: number | null;
  detail: string | null;
}

function toRun(row: RunRow): ImportRun {
  return {
    outcome: row.outcome === 'refused' ? 'refused' : 'imported',
    finishedAt: row.finished_at,
    contentVersion: row.content_version,
    detail: row.detail,
  };
}

export class SqliteImportRuns {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      counts: db.prepare<[], { committed: number; refused: number }>(
        "SELECT COALESCE(SUM(outcome = 'imported'), 0) AS committed, COALESCE(SUM(outcome = 'refused'), 0) AS refused FROM import_runs",
      ),
      last: db.prepare<[string], RunRow>(
        'SELECT outcome, finished_at, content_version, detail FROM import_runs WHERE outcome = ? ORDER BY id DESC LIMIT 1',
      ),
      record: db.prepare(RECORD_RUN),
    };
  }

  /** How many imports were committed and refused, and the last of each. */
  summary(): ImportRuns {
    return unavailableOnIoError(() => {
      const counts = this.s.counts.get()!;
      const last = this.s.last.get('imported');
      const lastRefused = this.s.last.get('refused');
      return {
        committed: counts.committed,
        refused: counts.refused,
        last: last ? toRun(last) : undefined,
        lastRefused: lastRefused ? toRun(lastRefused) : undefined,
      };
    });
  }

  recordRefused(finishedAt: string, detail: string): void {
    unavailableOnIoError(() => this.s.record.run(finishedAt, 'refused', null, detail));
  }
}
