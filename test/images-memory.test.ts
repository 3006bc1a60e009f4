/**
 * A hostile SVG resize against `scoop serve` in a process of its own, its RSS read from
 * /proc before, during and after: the resize is given up at SCOOP_RESIZE_TIMEOUT_SECONDS
 * (IMAGE_TOO_COMPLEX), and the memory libvips took for it comes back. The review's SVG
 * (6000×6000, a blur of 500) held a slot for 128 s and 2.3 GB; this smaller one takes
 * 20 s and more unbounded, so a 1 s timeout keeps the test short.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { bundleJson, importFolder, scratch } from './support/bundles.ts';
import { bands, hostileSvg } from './support/images.ts';
import { getFresh, listeningUrl, serveProcesses } from './support/serve-process.ts';

const s = scratch();
const serves = serveProcesses();
const PUBLIC = '/scoop/api/v6/public.asmx';
const MB = 1024 * 1024;

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024;
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a hostile SVG resize is refused at the timeout, and the memory it took comes back', async (t) => {
  const folder = s.bundle(
    bundleJson({
      bilder: [
        { bildID: 500, file: 'files/wolke.svg', filename: 'wolke.svg', mimetype: 'image/svg+xml' },
        { bildID: 501, file: 'files/markt.png', filename: 'markt.png', mimetype: 'image/png' },
      ],
    }),
    { 'files/wolke.svg': hostileSvg(3000, 200), 'files/markt.png': await bands(200, 100) },
  );
  const db = path.join(s.dir(), 'scoop.db');
  const store = s.store(db);
  await importFolder(store, folder);
  await store.close();

  const serve = serves.start([], {
    SCOOP_DB: db,
    SCOOP_PORT: '0',
    SCOOP_VARIANT_CACHE_DIR: path.join(s.dir(), 'variants'),
    SCOOP_RESIZE_SVG: 'on',
    SCOOP_RESIZE_TIMEOUT_SECONDS: '1',
  });
  const url = `${String((await listeningUrl(serve)).url)}${PUBLIC}/getBild`;
  // Warm: sharp loaded, one small resize made, the SVG served as stored.
  assert.equal((await getFresh(`${url}?bildID=501&width=50&height=50`)).status, 200);
  assert.equal((await getFresh(`${url}?bildID=500&width=0&height=0`)).status, 200);
  await sleep(500);
  const before = rssOf(serve.pid);

  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, rssOf(serve.pid));
      await sleep(50);
    }
  })();
  const started = performance.now();
  const answer = await getFresh(`${url}?bildID=500&width=3000&height=0`, {}, 60_000);
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  assert.equal(answer.status, 422, answer.body);
  assert.match(answer.body, /<code>IMAGE_TOO_COMPLEX<\/code>/);

  // Back within 50 MB of the start, once the allocator has had a moment.
  let after = rssOf(serve.pid);
  for (let i = 0; i < 50 && after - before > 50 * MB; i++) {
    await sleep(100);
    after = rssOf(serve.pid);
  }
  t.diagnostic(
    `RSS before ${mb(before)}, peak during ${mb(peak)}, after ${mb(after)}; refused after ${seconds.toFixed(1)} s`,
  );
  assert.ok(peak - before > 50 * MB, `the resize was under way: peak ${mb(peak)} over ${mb(before)}`);
  assert.ok(after - before < 50 * MB, `RSS ${mb(after)} after, ${mb(before)} before`);
  // The server is still there and answers.
  assert.equal((await getFresh(`${url}?bildID=501&width=60&height=60`)).status, 200);
  serve.child.kill('SIGTERM');
  assert.equal(await serve.exited, 0);
});
