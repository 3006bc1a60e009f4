import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ScoopError } from '../contract/errors.ts';
import { ResizeQueue } from './queue.ts';

/** A task that runs until `open()` is called. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, task: () => opened };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ResizeQueue', () => {
  test('runs at most `concurrency` tasks at once, the rest in arrival order', async () => {
    const queue = new ResizeQueue({ concurrency: 2, maxWaiting: 10 });
    const gates = [gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const runs = gates.map((g, i) =>
      queue.run(async () => {
        started.push(i);
        await g.task();
        return i;
      }),
    );
    await tick();
    assert.deepEqual(started, [0, 1]);
    assert.deepEqual(queue.stats, { running: 2, waiting: 2 });
    gates[1]!.open();
    await tick();
    assert.deepEqual(started, [0, 1, 2]);
    for (const g of gates) g.open();
    assert.deepEqual(await Promise.all(runs), [0, 1, 2, 3]);
    assert.deepEqual(queue.stats, { running: 0, waiting: 0 });
  });

  test('a full queue refuses at once with BUSY and a Retry-After estimate', async () => {
    const queue = new ResizeQueue({ concurrency: 1, maxWaiting: 1 });
    const g = gate();
    const first = queue.run(g.task);
    const second = queue.run(g.task);
    await assert.rejects(queue.run(g.task), (error: unknown) => {
      assert.ok(error instanceof ScoopError);
      assert.equal(error.code, 'BUSY');
      assert.equal(error.spec.status, 503);
      assert.ok(
        error.retryAfterSeconds! >= 1 && error.retryAfterSeconds! <= 60,
        String(error.retryAfterSeconds),
      );
      return true;
    });
    g.open();
    await Promise.all([first, second]);
  });

  test('with no waiting room, only the running task is accepted', async () => {
    const queue = new ResizeQueue({ concurrency: 1, maxWaiting: 0 });
    const g = gate();
    const first = queue.run(g.task);
    await assert.rejects(queue.run(g.task), { code: 'BUSY' });
    g.open();
    await first;
    await queue.run(async () => undefined);
  });

  test('a failing task frees its slot', async () => {
    const queue = new ResizeQueue({ concurrency: 1, maxWaiting: 0 });
    await assert.rejects(
      queue.run(async () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.deepEqual(queue.stats, { running: 0, waiting: 0 });
    assert.equal(await queue.run(async () => 'next'), 'next');
  });

  test('Retry-After grows with the work ahead', async () => {
    const queue = new ResizeQueue({ concurrency: 1, maxWaiting: 100, estimateMs: 2000 });
    const g = gate();
    const runs = Array.from({ length: 5 }, () => queue.run(g.task));
    assert.equal(queue.retryAfterSeconds(), 10);
    g.open();
    await Promise.all(runs);
  });

  test('a waiting task whose signal fires leaves the queue and never runs; a running one keeps its slot', async () => {
    const queue = new ResizeQueue({ concurrency: 1, maxWaiting: 4 });
    const g = gate();
    const running = new AbortController();
    const leaving = new AbortController();
    let ran = 0;
    const first = queue.run(async () => {
      ran++;
      await g.task();
    }, running.signal);
    const second = queue.run(async () => {
      ran++;
    }, leaving.signal);
    await tick();
    assert.deepEqual(queue.stats, { running: 1, waiting: 1 });
    leaving.abort();
    await assert.rejects(second, { code: 'CLIENT_CLOSED' });
    assert.deepEqual(queue.stats, { running: 1, waiting: 0 });
    // libvips cannot be stopped from outside: the slot stays taken until the task returns.
    running.abort();
    await tick();
    assert.deepEqual(queue.stats, { running: 1, waiting: 0 });
    g.open();
    await first;
    assert.equal(ran, 1);
    assert.deepEqual(queue.stats, { running: 0, waiting: 0 });
    await assert.rejects(
      queue.run(async () => ran++, AbortSignal.abort()),
      { code: 'CLIENT_CLOSED' },
    );
    assert.equal(ran, 1);
  });
});
