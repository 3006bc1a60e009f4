/**
 * Large binaries stream: the store hands out chunks and the writer base64-encodes them
 * as they go, so serving a large attachment holds neither it nor its base64 in memory.
 * Both databases: PostgreSQL reads one 256 KiB chunk row per query as the answer goes out.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import { Base64Cache } from '../src/cache/base64-cache.ts';
import { base64Chunks, base64Length } from '../src/xml/binary.ts';
import { DATABASES, type TestDatabase } from './support/databases.ts';
import { type Fixture, startFixture } from './support/fixture-server.ts';

const SIZE = 48 * 1024 * 1024 + 1; // not a multiple of 3 or of the chunk size
let bundleDir: string;
let expectedSha: string;

async function writeLargeFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  const out = createWriteStream(file);
  const block = randomBytes(1024 * 1024);
  for (let written = 0; written < SIZE; written += block.length) {
    const piece = block.subarray(0, Math.min(block.length, SIZE - written));
    hash.update(piece);
    if (!out.write(piece)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return hash.digest('hex');
}

before(async () => {
  bundleDir = mkdtempSync(path.join(tmpdir(), 'scoop-large-'));
  mkdirSync(path.join(bundleDir, 'files'));
  expectedSha = await writeLargeFile(path.join(bundleDir, 'files', 'large.bin'));
  writeFileSync(
    path.join(bundleDir, 'bundle.json'),
    JSON.stringify({
      format: 'scoop-bundle/1',
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
  );
});

after(() => {
  rmSync(bundleDir, { recursive: true, force: true });
});

/** Streams the response, decoding the base64 inside <data> as it arrives. */
function fetchDecoded(url: string, body?: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; length: number; received: number; sha: string; peakRss: number }>(
    (resolve, reject) => {
      const hash = createHash('sha256');
      let state: 'before' | 'in' | 'after' = 'before';
      let carry = '';
      let received = 0;
      let peakRss = process.memoryUsage().rss;
      const sampler = setInterval(() => {
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
      }, 10);
      const req = request(url, { method: body ? 'POST' : 'GET', headers }, (res) => {
        res.setEncoding('latin1');
        res.on('data', (text: string) => {
          received += text.length;
          let chunk = carry + text;
          carry = '';
          if (state === 'before') {
            const at = chunk.indexOf('<data>');
            if (at < 0) {
              carry = chunk.slice(-6);
              return;
            }
            state = 'in';
            chunk = chunk.slice(at + 6);
          }
          if (state === 'in') {
            const end = chunk.indexOf('<');
            const data = end < 0 ? chunk : chunk.slice(0, end);
            const whole = data.length - (data.length % 4);
            hash.update(Buffer.from(data.slice(0, whole), 'base64'));
            carry = data.slice(whole);
            if (end >= 0) {
              hash.update(Buffer.from(carry, 'base64'));
              carry = '';
              state = 'after';
            }
          }
        });
        res.on('end', () => {
          clearInterval(sampler);
          resolve({
            status: res.statusCode ?? 0,
            length: Number(res.headers['content-length']),
            received,
            sha: hash.digest('hex'),
            peakRss,
          });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    },
  );
}

/** getAnhang 900 over SOAP 1.1: the whole file, as long as announced. */
async function assertSoapAnswer(base: string): Promise<void> {
  const envelope =
    '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
    '<getAnhang xmlns="http://scoop.example.org/api"><anhangID>900</anhangID></getAnhang></soap:Body></soap:Envelope>';
  const result = await fetchDecoded(`${base}/scoop/api/v6/public.asmx`, envelope, {
    'content-type': 'text/xml; charset=utf-8',
  });
  assert.equal(result.status, 200);
  assert.equal(result.received, result.length);
  assert.equal(result.sha, expectedSha);
}

for (const db of DATABASES) describe(db.name, () => streaming(db));
for (const db of DATABASES) describe(`${db.name}, through the base64 cache`, () => cached(db));

function streaming(db: TestDatabase): void {
  const { test } = db;
  let fixture: Fixture;
  before(async () => {
    if (!db.skip) fixture = await startFixture({}, [bundleDir], db);
  });
  after(async () => {
    await fixture?.stop();
  });

  test('a 48 MB attachment streams over HTTP GET with memory far below its base64 size', async () => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    const result = await fetchDecoded(
      `${fixture.server.url}/scoop/api/v6/public.asmx/getAnhang?anhangID=900`,
    );
    assert.equal(result.status, 200);
    assert.equal(result.received, result.length, 'Content-Length matches the bytes sent');
    assert.equal(result.sha, expectedSha, 'the decoded data equals the file');
    const growthMb = (result.peakRss - before) / 1048576;
    // Holding the attachment would take 48 MB, its base64 64 MB; streaming stays well below.
    assert.ok(growthMb < 40, `RSS grew by ${growthMb.toFixed(1)} MB`);
  });

  test('the same attachment streams over SOAP 1.1', async () => {
    await assertSoapAnswer(fixture.server.url);
  });
}

/** The same answers with a base64 cache (cache/base64-cache.ts): the second comes from its file. */
function cached(db: TestDatabase): void {
  const { test } = db;
  let fixture: Fixture;
  let dir: string;
  const lookups: string[] = [];
  const errors: unknown[] = [];
  let cache: Base64Cache;
  before(async () => {
    if (db.skip) return;
    dir = mkdtempSync(path.join(tmpdir(), 'scoop-binaries-'));
    cache = await Base64Cache.open({
      dir,
      maxBytes: 1024 ** 3,
      encode: base64Chunks,
      onLookup: (result) => lookups.push(result),
      onError: (error) => errors.push(error),
    });
    fixture = await startFixture({ base64Cache: cache }, [bundleDir], db);
  });
  after(async () => {
    await fixture?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a 48 MB attachment is answered alike from the store (kept on the way) and then from the file', async () => {
    const url = `${fixture.server.url}/scoop/api/v6/public.asmx/getAnhang?anhangID=900`;
    const first = await fetchDecoded(url);
    await cache.settled();
    global.gc?.();
    const before = process.memoryUsage().rss;
    const second = await fetchDecoded(url);
    for (const result of [first, second]) {
      assert.equal(result.status, 200);
      assert.equal(result.received, result.length);
      assert.equal(result.sha, expectedSha);
    }
    assert.equal(second.length, first.length);
    assert.deepEqual(lookups, ['miss', 'hit']);
    assert.deepEqual(errors, []);
    assert.deepEqual(readdirSync(dir), [`${expectedSha}.b64`]);
    assert.equal(statSync(path.join(dir, `${expectedSha}.b64`)).size, base64Length(SIZE));
    const growthMb = (second.peakRss - before) / 1048576;
    assert.ok(growthMb < 40, `RSS grew by ${growthMb.toFixed(1)} MB`);
  });

  test('over SOAP 1.1 too, and a damaged file is replaced, the answer coming from the store', async () => {
    writeFileSync(path.join(dir, `${expectedSha}.b64`), 'damaged');
    await assertSoapAnswer(fixture.server.url);
    await cache.settled();
    assert.equal(statSync(path.join(dir, `${expectedSha}.b64`)).size, base64Length(SIZE));
    assert.match(String(errors[0]), /holds 7 characters/);
  });
}
