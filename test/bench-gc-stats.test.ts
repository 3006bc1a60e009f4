import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gcOfRun, parseGcTotals } from '../bench/gc-stats.ts';

const EXPOSITION = `# HELP scoop_nodejs_gc_duration_seconds Garbage collection duration by kind, one of major, minor, incremental or weakcb.
# TYPE scoop_nodejs_gc_duration_seconds histogram
scoop_nodejs_gc_duration_seconds_bucket{le="0.001",kind="minor"} 0
scoop_nodejs_gc_duration_seconds_sum{kind="minor"} 0.25
scoop_nodejs_gc_duration_seconds_count{kind="minor"} 42
scoop_nodejs_gc_duration_seconds_bucket{le="0.01",kind="major"} 3
scoop_nodejs_gc_duration_seconds_sum{kind="major"} 0.05
scoop_nodejs_gc_duration_seconds_count{kind="major"} 7
scoop_nodejs_gc_duration_seconds_sum{kind="incremental"} 0.0125
scoop_nodejs_gc_duration_seconds_count{kind="incremental"} 9
scoop_process_cpu_seconds_total 12
`;

test('the major collections and the pauses of every kind are read from /metrics', () => {
  assert.deepEqual(parseGcTotals(EXPOSITION), { major: 7, pauseSeconds: 0.3125 });
});

test('an exposition without the series counts nothing', () => {
  assert.deepEqual(parseGcTotals('scoop_process_cpu_seconds_total 12\n'), { major: 0, pauseSeconds: 0 });
});

test('a run is what changed between its two readings, per second of it', () => {
  const run = gcOfRun({ major: 7, pauseSeconds: 0.3 }, { major: 47, pauseSeconds: 1.1 }, 8);
  assert.equal(run.majorPerSecond, 5);
  assert.ok(Math.abs(run.pauseShare - 0.1) < 1e-12);
});
