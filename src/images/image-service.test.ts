import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { serveSettings } from '../server/settings.ts';
import { defaultConcurrency, workerShare } from './image-service.ts';

test('resize slots and queue places are the instance’s, shared among its workers', () => {
  assert.deepEqual(workerShare({ concurrency: 6, maxWaiting: 64 }, 1), { concurrency: 6, maxWaiting: 64 });
  assert.deepEqual(workerShare({ concurrency: 6, maxWaiting: 64 }, 2), { concurrency: 3, maxWaiting: 32 });
  // Slots round down, so the machine never runs more than asked; but each worker has one.
  assert.deepEqual(workerShare({ concurrency: 3, maxWaiting: 5 }, 2), { concurrency: 1, maxWaiting: 3 });
  assert.deepEqual(workerShare({ concurrency: 2, maxWaiting: 0 }, 4), { concurrency: 1, maxWaiting: 0 });
});

test('the default is the CPU count shared among the workers, capped by each one’s thread pool', () => {
  const cpus = availableParallelism();
  const large = { UV_THREADPOOL_SIZE: '1024' };
  assert.equal(defaultConcurrency(large, 1), cpus);
  assert.equal(defaultConcurrency(large, 2), Math.max(1, Math.floor(cpus / 2)));
  assert.equal(defaultConcurrency(large, cpus * 2), 1);
  assert.equal(defaultConcurrency({}, 1), Math.min(cpus, 3));
  assert.equal(
    workerShare({ concurrency: undefined, maxWaiting: 64 }, 2, large).concurrency,
    defaultConcurrency(large, 2),
  );
});

test('serve settings give each worker its share (--workers or SCOOP_WORKERS)', () => {
  const env = { SCOOP_RESIZE_CONCURRENCY: '4', SCOOP_RESIZE_QUEUE: '10' };
  const one = serveSettings({}, env).images;
  assert.deepEqual([one.concurrency, one.maxWaiting], [4, 10]);
  const byFlag = serveSettings({ workers: '2' }, env).images;
  assert.deepEqual([byFlag.concurrency, byFlag.maxWaiting], [2, 5]);
  const byEnv = serveSettings({}, { ...env, SCOOP_WORKERS: '4' }).images;
  assert.deepEqual([byEnv.concurrency, byEnv.maxWaiting], [1, 3]);
});
