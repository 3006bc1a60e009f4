import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffMs, MAX_WAIT_MS, Pacer, retryAfterMs } from './pacer.ts';

/** A clock that only moves when the pacer sleeps. */
function fakeTime() {
  let now = 0;
  return {
    clock: () => now,
    sleep: async (ms: number) => {
      now += ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

test('starts are spaced one interval apart, measured from the start before', async () => {
  const time = fakeTime();
  const pacer = new Pacer({ ratePerSecond: 4, ...time });
  const starts: number[] = [];
  await Promise.all(Array.from({ length: 5 }, () => pacer.turn().then(() => starts.push(time.clock()))));
  assert.deepEqual(starts, [0, 250, 500, 750, 1000]);
  // A caller that comes late is not owed the slots it missed.
  time.advance(5000);
  await pacer.turn();
  await pacer.turn();
  assert.equal(time.clock(), 6250);
});

test('a pause holds every caller, with or without a rate', async () => {
  for (const ratePerSecond of [undefined, 1000]) {
    const time = fakeTime();
    const pacer = new Pacer({ ratePerSecond, ...time });
    pacer.pauseFor(2000);
    await pacer.turn();
    assert.ok(time.clock() >= 2000);
  }
});

test('Retry-After in seconds or as an HTTP date, capped', () => {
  assert.equal(retryAfterMs('3'), 3000);
  assert.equal(retryAfterMs(' 0 '), 0);
  assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4000), 6000);
  assert.equal(retryAfterMs('999999'), MAX_WAIT_MS);
  assert.equal(retryAfterMs('soon'), undefined);
  assert.equal(retryAfterMs(undefined), undefined);
});

test('back-off doubles with jitter', () => {
  assert.equal(
    backoffMs(1, () => 0.5),
    500,
  );
  assert.equal(
    backoffMs(3, () => 0.5),
    2000,
  );
  assert.equal(
    backoffMs(3, () => 0),
    1500,
  );
  assert.equal(
    backoffMs(20, () => 1),
    37500,
  );
});
