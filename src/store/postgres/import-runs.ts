/**
 * The record of imports (content-store.ts ImportRun) in the `import_runs` table: a
 * committed one is written by its import transaction, a refused one here, in a
 * transaction of its own after the import's was rolled back.
 */
import type { ImportRun, ImportRuns } from '../content-store.ts';
import type { PostgresPool } from './pool.ts';

export const RECORD_RUN =
  'INSERT INTO import_runs (finished_at, outcome, content_version, detail) VALUES ($1, $2, $3, $4)';

interface RunRow {
  outcome: string;
  finished_at: string;
  content_version: number | null;
  detail: string | null;
}

export class PostgresImportRuns {
  constructor(private readonly db: PostgresPool) {}

  /** How many imports were committed and refused, and the last of each. */
  async summary(): Promise<ImportRuns> {
    const counts = await this.db.query<{ committed: number; refused: number }>(
      `SELECT count(*) FILTER (WHERE outcome = 'imported')::int AS committed,
              count(*) FILTER (WHERE outcome = 'refused')::int AS refused
       FROM import_runs`,
    );
    const { rows } = await this.db.query<RunRow>(
      `SELECT DISTINCT ON (outcome) outcome, finished_at, content_version::int AS content_version, detail
       FROM import_runs WHERE outcome IN ('imported', 'refused') ORDER BY outcome, id DESC`,
    );
    const lastOf = (outcome: ImportRun['outcome']): ImportRun | undefined => {
      const row = rows.find((r) => r.outcome === outcome);
      return (
        row && {
          outcome,
          finishedAt: row.finished_at,
          contentVersion: row.content_version,
          detail: row.detail,
        }
      );
    };
    return {
      committed: counts.rows[0]?.committed ?? 0,
      refused: counts.rows[0]?.refused ?? 0,
      last: lastOf('imported'),
      lastRefused: lastOf('refused'),
    };
  }

  async recordRefused(finishedAt: string, detail: string): Promise<void> {
    await this.db.query(RECORD_RUN, [finishedAt, 'refused', null, detail]);
  }
}
