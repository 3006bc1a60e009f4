import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadTwoAtOnce } from '../bench/at-once.ts';
import type { WrkResult } from '../bench/load.ts';

const result = (requests: number) => ({ requests, rps: requests, errorCount: 0 }) as unknown as WrkResult;

test('the load that starts first alternates by round, and each result stays with its server', async () => {
  for (const [round, first] of [
    [0, 0],
    [1, 1],
    [2, 0],
    [3, 1],
  ] as const) {
    const started: number[] = [];
    const [a, b] = await loadTwoAtOnce([process.pid, process.pid], round, async (i) => {
      started.push(i);
      return result(i === 0 ? 1000 : 2000);
    });
    assert.deepEqual(started, [first, 1 - first], `round ${round}`);
    assert.equal(a.result.requests, 1000);
    assert.equal(b.result.requests, 2000);
  }
});

test("each server's CPU per request is its own ticks over its own requests", async () => {
  const [a, b] = await loadTwoAtOnce([process.pid, process.pid], 0, async (i) => {
    // Keep this process busy long enough to count several of /proc's 10 ms ticks.
    const until = performance.now() + 100;
    while (performance.now() < until);
    return result(i === 0 ? 10 : 20);
  });
  assert.ok(a.cpuUs > 0);
  // Same process, same ticks: the server with twice the requests has half the CPU a request.
  assert.ok(Math.abs(a.cpuUs - 2 * b.cpuUs) < 1e-9, `${a.cpuUs} and ${b.cpuUs}`);
});
