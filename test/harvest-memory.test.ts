/**
 * `scoop harvest` decodes a binary from base64 while its answer streams in and writes it
 * to a file piece by piece: the harvest process's peak resident memory (VmHWM, sampled
 * while it runs, as test/import-memory.test.ts does) grows by far less than a 200 MB
 * attachment, compared with harvesting a 64 KiB one. The source is a small server that
 * generates the answer as it sends it (no store, no file), and the harvested file must
 * have the bytes it sent.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { scratch } from './support/bundles.ts';
import { NAMESPACE } from './support/harvest.ts';
import { soapFault } from './support/harvest-source.ts';
import { scoopPeakRss } from './support/peak-rss.ts';

const MB = 1024 * 1024;
const LARGE = 200 * MB + 7; // not a multiple of a piece
const SMALL = 64 * 1024;
/** 3 × 64 KiB: a piece of bytes that encodes to base64 on its own. */
const PIECE = 3 * 64 * 1024;
const s = scratch();

/** The bytes of attachment `id`: a block with a counter in front, so they are not all alike. */
function* pieces(size: number): Generator<Buffer> {
  const block = Buffer.alloc(PIECE);
  for (let i = 0; i < PIECE; i++) block[i] = (i * 31 + 7) & 0xff;
  for (let sent = 0, n = 0; sent < size; sent += PIECE, n++) {
    block.writeUInt32BE(n);
    yield Buffer.from(block.subarray(0, Math.min(PIECE, size - sent)));
  }
}

function sha256Of(size: number): string {
  const hash = createHash('sha256');
  for (const piece of pieces(size)) hash.update(piece);
  return hash.digest('hex');
}

let server: http.Server;
let url: string;
before(async () => {
  server = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const id = Number(/<anhangID>(\d+)<\/anhangID>/.exec(body)?.[1]);
    const size = id === 1 ? LARGE : id === 2 ? SMALL : undefined;
    if (size === undefined) {
      res.writeHead(500, { 'content-type': 'text/xml; charset=utf-8' });
      res.end(soapFault('soap:Client', `Unknown anhangID: ${id}`));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
    const write = (text: string) =>
      res.write(text) ? undefined : new Promise<void>((resolve) => res.once('drain', () => resolve()));
    await write(
      `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><getAnhangResponse xmlns="${NAMESPACE}"><getAnhangResult><anhang><anhangID>${id}</anhangID><filename>gross.bin</filename><name>Groß</name><size>${size}</size><mimetype>application/octet-stream</mimetype><data>`,
    );
    for (const piece of pieces(size)) await write(piece.toString('base64'));
    res.end(
      '</data><sort>1</sort></anhang></getAnhangResult></getAnhangResponse></soap:Body></soap:Envelope>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

/** `scoop harvest --anhaenge <id>` in a process of its own; resolves with its peak RSS and the bundle folder. */
async function harvestPeak(id: number): Promise<{ peak: number; out: string }> {
  const out = path.join(s.dir(), 'bundle');
  const peak = await scoopPeakRss(['harvest', '--from', url, '--out', out, '--anhaenge', String(id)]);
  return { peak, out };
}

test(`harvesting a ${LARGE >> 20} MB attachment keeps the harvest's memory far below its size`, async (t) => {
  const baseline = await harvestPeak(2);
  const started = performance.now();
  const large = await harvestPeak(1);
  const seconds = (performance.now() - started) / 1000;
  const growth = large.peak - baseline.peak;
  t.diagnostic(
    `peak RSS ${(baseline.peak / MB).toFixed(0)} MB with 64 KiB, ${(large.peak / MB).toFixed(0)} MB with ${LARGE >> 20} MB (+${(growth / MB).toFixed(1)} MB), harvest ${seconds.toFixed(1)} s`,
  );
  // Holding the answer's text would cost 270 MB, its bytes 200 MB; streaming costs a few pieces.
  assert.ok(growth < 64 * MB, `peak RSS grew by ${(growth / MB).toFixed(1)} MB`);

  const file = path.join(large.out, 'files/anhaenge/1');
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  assert.equal(hash.digest('hex'), sha256Of(LARGE), 'the bytes sent');
  const bundle = JSON.parse(readFileSync(path.join(large.out, 'bundle.json'), 'utf8'));
  assert.deepEqual(bundle.anhaenge, [
    {
      anhangID: 1,
      file: 'files/anhaenge/1',
      filename: 'gross.bin',
      name: 'Groß',
      beschreibung: null,
      mimetype: 'application/octet-stream',
      sort: 1,
    },
  ]);
});
