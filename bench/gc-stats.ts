/**
 * Garbage collection of a `scoop serve` under load, read from its admin listener's
 * `/metrics` (prom-client's `nodejs_gc_duration_seconds`, which scoop exports with its
 * `scoop_` prefix) before and after a run: how many full (major) collections it made and
 * what share of the run its collector's pauses took. On the realistic mix these were the
 * lead on the slow path (docs/performance.md, "The evening's round").
 */
const SERIES = /^scoop_nodejs_gc_duration_seconds_(count|sum)\{kind="([a-z]+)"\} (\S+)$/gm;

export interface GcTotals {
  /** Full collections (mark-compacts) so far. */
  readonly major: number;
  /** Seconds of collector pauses so far, of every kind. */
  readonly pauseSeconds: number;
}

/** The totals in a Prometheus text exposition; zero for series it does not hold. */
export function parseGcTotals(metrics: string): GcTotals {
  let major = 0;
  let pauseSeconds = 0;
  for (const [, field, kind, value] of metrics.matchAll(SERIES)) {
    const n = Number(value);
    if (!Number.isFinite(n)) continue;
    if (field === 'count' && kind === 'major') major += n;
    if (field === 'sum') pauseSeconds += n;
  }
  return { major, pauseSeconds };
}

export async function gcTotals(adminUrl: string): Promise<GcTotals> {
  const answer = await fetch(`${adminUrl}/metrics`);
  if (!answer.ok) throw new Error(`${adminUrl}/metrics answered ${answer.status}`);
  return parseGcTotals(await answer.text());
}

/** What a run of `seconds` cost in collections, from the totals before and after it. */
export interface GcOfRun {
  readonly majorPerSecond: number;
  /** Share of the run's wall time in collector pauses (0–1). */
  readonly pauseShare: number;
}

export function gcOfRun(before: GcTotals, after: GcTotals, seconds: number): GcOfRun {
  return {
    majorPerSecond: (after.major - before.major) / seconds,
    pauseShare: (after.pauseSeconds - before.pauseSeconds) / seconds,
  };
}
