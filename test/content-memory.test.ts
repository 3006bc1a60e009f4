/**
 * The JSON API's content routes stream a file from the store chunk by chunk: a 200 MB
 * attachment, sent whole and as a range from its far end, takes `scoop serve` (a child
 * process, so this test's own buffers do not count) less than 50 MB above its RSS before.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { test } from 'node:test';
import { bundleJson, pattern, scratch } from './support/bundles.ts';
import { runScoop } from './support/scoop-command.ts';
import { listeningUrl, serveProcesses } from './support/serve-process.ts';

const MB = 1024 * 1024;
const SIZE = 200 * MB + 7; // not a multiple of the 192 KiB chunks
const s = scratch();
const serves = serveProcesses();

function rss(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/** Writes the file from a repeated 1 MiB block, returning its SHA-256. */
async function writeLarge(file: string): Promise<{ sha: string; block: Buffer }> {
  const block = pattern(MB, 11);
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  for (let written = 0; written < SIZE; written += MB) {
    const piece = block.subarray(0, Math.min(MB, SIZE - written));
    hash.update(piece);
    if (!out.write(piece)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return { sha: hash.digest('hex'), block };
}

/** Streams an answer, hashing it; nothing of it is kept here. */
function download(url: string, headers: Record<string, string> = {}) {
  return new Promise<{
    status: number;
    length: number;
    sha: string;
    first: Buffer;
    headers: Record<string, unknown>;
  }>((resolve, reject) => {
    request(url, { headers }, (res) => {
      const hash = createHash('sha256');
      let length = 0;
      let first = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        if (first.length < 16) first = Buffer.concat([first, chunk]).subarray(0, 16);
        hash.update(chunk);
        length += chunk.length;
      });
      res.on('end', () =>
        resolve({ status: res.statusCode!, length, sha: hash.digest('hex'), first, headers: res.headers }),
      );
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

test('a 200 MB attachment streams from the content route, whole and in a range, in bounded memory', async (t) => {
  const folder = s.dir();

  mkdirSync(path.join(folder, 'files'));
  const { sha, block } = await writeLarge(path.join(folder, 'files', 'large.bin'));
  writeFileSync(
    path.join(folder, 'bundle.json'),
    JSON.stringify(
      bundleJson({
        anhaenge: [
          {
            anhangID: 900,
            file: 'files/large.bin',
            filename: 'large.bin',
            name: 'Groß',
            mimetype: 'application/octet-stream',
            sort: 1,
          },
        ],
      }),
    ),
  );
  const db = s.dbPath();
  const imported = await runScoop(['import', folder, '--db', db]);
  assert.equal(imported.code, 0, imported.stderr);

  const serve = serves.start(['--port', '0', '--db', db], { SCOOP_RESPONSE_CACHE_BYTES: '0' });
  const { url } = await listeningUrl(serve);
  const content = `${url}/api/v1/anhaenge/900/content`;
  // A first small answer, so what any request allocates once is in the start figure.
  await download(`${url}/api/v1/anhaenge/900`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const start = rss(serve.pid);
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss(serve.pid));
  }, 20);
  try {
    const whole = await download(content);
    assert.equal(whole.status, 200);
    assert.equal(whole.length, SIZE);
    assert.equal(whole.sha, sha);
    assert.equal(whole.headers['content-length'], String(SIZE));

    t.diagnostic(`after whole: peak ${((peak - start) / MB).toFixed(0)}`);
    const from = SIZE - 3 * MB - 5;
    const part = await download(content, { range: `bytes=${from}-` });
    assert.equal(part.status, 206);
    assert.equal(part.length, SIZE - from);
    assert.equal(part.headers['content-range'], `bytes ${from}-${SIZE - 1}/${SIZE}`);
    assert.deepEqual(part.first, block.subarray(from % MB, (from % MB) + 16));
  } finally {
    clearInterval(sampler);
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
  t.diagnostic(`RSS ${(start / MB).toFixed(0)} → peak ${(peak / MB).toFixed(0)} MB`);
  assert.ok(peak - start < 50 * MB, `RSS grew by ${((peak - start) / MB).toFixed(0)} MB`);
});
