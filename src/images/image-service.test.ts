import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, test } from 'node:test';
import { serveSettings } from '../server/settings.ts';
import type { StoredBlob } from '../store/content-store.ts';
import { ImageService } from './image-service.ts';
import { DEFAULT_IMAGE_SETTINGS, defaultConcurrency, workerShare } from './image-settings.ts';
import type { Resizer } from './resize.ts';

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

describe('a resize whose clients have all gone is dropped from the queue', () => {
  const bytes = new Uint8Array([1]);
  const blob: StoredBlob = {
    id: 1,
    sha256: 'a'.repeat(64),
    size: 1,
    bytes,
    source: {
      size: 1,
      async *chunks() {
        yield bytes;
      },
    },
  };
  const request = (width: number) => ({ width, height: 0, modes: [], maxDimension: 4096, bildID: 1 });

  function held() {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const widths: number[] = [];
    const resizer: Resizer = async (_input, r) => {
      widths.push(r.width);
      await gate;
      return { bytes: Buffer.from([r.width]), format: 'png', width: r.width, height: 1 };
    };
    const service = ImageService.uncached({ ...DEFAULT_IMAGE_SETTINGS, concurrency: 1 }, { resizer });
    return { open, widths, service };
  }

  const waiting = async (service: ImageService, n: number) => {
    while (service.queue.stats.waiting !== n) await new Promise((resolve) => setImmediate(resolve));
  };

  test('one client of two leaving a shared resize does not drop it', async () => {
    const { open, widths, service } = held();
    const first = service.variant(blob, request(10));
    const leaving = new AbortController();
    const gone = service.variant(blob, request(20), leaving.signal);
    const staying = service.variant(blob, request(20), new AbortController().signal);
    await waiting(service, 1);
    leaving.abort();
    open();
    await first;
    assert.equal((await staying).size, 1);
    // The one that left is answered too (its answer goes nowhere): the resize ran for both.
    await gone;
    assert.deepEqual(widths, [10, 20]);
  });

  test('when every client of a queued resize has gone, it never runs', async () => {
    const { open, widths, service } = held();
    const first = service.variant(blob, request(10));
    const a = new AbortController();
    const b = new AbortController();
    const gone = [service.variant(blob, request(30), a.signal), service.variant(blob, request(30), b.signal)];
    await waiting(service, 1);
    a.abort();
    b.abort();
    for (const p of gone) await assert.rejects(p, { code: 'CLIENT_CLOSED' });
    assert.deepEqual(service.queue.stats, { running: 1, waiting: 0 });
    // A new request for the same variant makes it afresh.
    const again = service.variant(blob, request(30), new AbortController().signal);
    open();
    await first;
    assert.equal((await again).size, 1);
    assert.deepEqual(widths, [10, 30]);
  });

  test('a request whose client has already gone does not queue at all', async () => {
    const { open, widths, service } = held();
    await assert.rejects(service.variant(blob, request(40), AbortSignal.abort()), { code: 'CLIENT_CLOSED' });
    open();
    assert.deepEqual(widths, []);
    assert.deepEqual(service.queue.stats, { running: 0, waiting: 0 });
  });
});
