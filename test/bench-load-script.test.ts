import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DONE, luaScript } from '../bench/load.ts';
import type { BenchRequest } from '../bench/scenarios.ts';

const requests: BenchRequest[] = Array.from({ length: 10 }, (_, i) => ({
  name: `r${i}`,
  method: 'GET' as const,
  path: `/r${i}`,
  headers: {},
}));

test("the load test's wrk threads each start at a place of their own, not at LuaJIT's one unseeded draw", () => {
  const script = luaScript(requests, false, 0, 2);
  assert.doesNotMatch(script, /math\.random/);
  // Thread k (numbered by setup) starts (k - 1) times its share of the list on: at 0 and 5.
  assert.match(script, /next_index = \(\(thread_number or 1\) - 1\) \* 5 % #prepared/);
  assert.match(DONE, /thread:set\("thread_number", #threads\)/);
  assert.ok(script.endsWith(DONE));
});

test('one thread, or more threads than requests, start at the list’s beginning and step by one', () => {
  assert.match(luaScript(requests, false), /\(\(thread_number or 1\) - 1\) \* 10 % #prepared/);
  assert.match(
    luaScript(requests.slice(0, 3), false, 0, 8),
    /\(\(thread_number or 1\) - 1\) \* 1 % #prepared/,
  );
});
