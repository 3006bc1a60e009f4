/**
 * What each import changed of the prepared answers, kept with the content version it made,
 * so that a process holding the answers of an earlier version (prepare/answer-pack.ts)
 * drops only those instead of all of them: after an editorial import most answers are as
 * they were (docs/performance.md, "The eighteenth round").
 *
 * Each version's row has a token of its own, drawn when the import commits: a version
 * number alone does not say which content it was (a store restored from a backup brings
 * numbers back with other content), a token found again in the store does, since it was
 * copied with that content.
 */
import { randomUUID } from 'node:crypto';

/** A prepared answer by its operation and key (content-store.ts AnswerKey). */
export interface ChangedAnswer {
  readonly operation: string;
  readonly key: string;
}

/** An import's changes: the answers it wrote or removed, and the blobs it deleted (their ids may be given again). */
export interface AnswerChanges {
  readonly answers: readonly ChangedAnswer[];
  readonly blobs: readonly number[];
}

/** A content version and the token of its row: which content it was. */
export interface VersionMark {
  readonly version: number;
  readonly token: string;
}

/** What answerChanges tells. */
export interface ChangesSince {
  /** The store's content version now, and its token (undefined when no row says: then no later call can be told changes since it). */
  readonly version: number;
  readonly token: string | undefined;
  /**
   * Every change since the mark asked about, the versions in between in order; undefined
   * when they cannot all be told (a version without a row, one that redid every answer,
   * a mark of other content): then every answer may have changed.
   */
  readonly changes: AnswerChanges | undefined;
}

/** A row of the table `content_changes`. */
export interface ChangeRow {
  readonly version: number | string;
  readonly token: string;
  /** JSON of AnswerChanges; null: every answer may have changed. */
  readonly changes: string | null;
}

/** Past this many answers changes are not listed (nor told, summed over versions): a process reads every answer again. */
export const MAX_LISTED_ANSWERS = 20_000;
/** Rows kept: a process more versions behind than this reads every answer again. */
export const KEPT_VERSIONS = 64;

/** The row an import writes for the version it made: changes undefined when it redid every answer. */
export function changeRow(version: number, changes: AnswerChanges | undefined): ChangeRow {
  const listed = changes !== undefined && changes.answers.length <= MAX_LISTED_ANSWERS;
  return {
    version,
    token: randomUUID(),
    changes: listed
      ? JSON.stringify({ answers: changes.answers.map((a) => [a.operation, a.key]), blobs: changes.blobs })
      : null,
  };
}

/**
 * What changed since `since`, from the store's version now and its rows of versions from
 * `since.version` on (or of `version` alone without one), read in one state of the store.
 */
export function changesSince(
  version: number,
  since: VersionMark | undefined,
  rows: readonly ChangeRow[],
): ChangesSince {
  const byVersion = new Map(rows.map((row) => [Number(row.version), row]));
  const token = byVersion.get(version)?.token;
  if (since === undefined || byVersion.get(since.version)?.token !== since.token || since.version > version)
    return { version, token, changes: undefined };
  // An answer changed by several imports is listed once; past MAX_LISTED_ANSWERS in all, none.
  const answers = new Map<string, ChangedAnswer>();
  const blobs: number[] = [];
  for (let v = since.version + 1; v <= version; v++) {
    const text = byVersion.get(v)?.changes;
    if (text === undefined || text === null) return { version, token, changes: undefined };
    const parsed = JSON.parse(text) as { answers: Array<[string, string]>; blobs: number[] };
    for (const [operation, key] of parsed.answers)
      answers.set(`${operation}\u0000${key}`, { operation, key });
    if (answers.size > MAX_LISTED_ANSWERS) return { version, token, changes: undefined };
    blobs.push(...parsed.blobs);
  }
  return { version, token, changes: { answers: [...answers.values()], blobs } };
}
