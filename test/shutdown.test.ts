/**
 * SIGTERM drains: the server stops taking connections, lets a request in flight finish
 * (here a large attachment the client reads slowly) and exits 0; a request that is still
 * stalled when SCOOP_SHUTDOWN_TIMEOUT_MS have passed is cut, and the exit is 0 all the same.
 * A SIGTERM sent the moment the start is announced is a clean stop too.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { scoopArgs } from '../bench/node-flags.ts';
import { listeningUrl, serveProcesses } from './support/serve-process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'scoop-shutdown-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const serves = serveProcesses();

function writeBundle(): string {
  const bundle = path.join(dir, 'bundle');
  mkdirSync(path.join(bundle, 'files'), { recursive: true });
  writeFileSync(path.join(bundle, 'files', 'big.bin'), randomBytes(24 * 1024 * 1024));
  writeFileSync(
    path.join(bundle, 'bundle.json'),
    JSON.stringify({
      format: 'scoop-bundle/1',
      anhaenge: [
        { anhangID: 900, file: 'files/big.bin', filename: 'big.bin', mimetype: 'application/octet-stream' },
      ],
    }),
  );
  return bundle;
}

function startServe(
  bundle: string,
  env: Readonly<Record<string, string>> = {},
  db = path.join(dir, 'scoop.db'),
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, scoopArgs(['serve', '--port', '0', '--db', db, '--seed', bundle]), {
    env: { ...process.env, SCOOP_ADMIN_PORT: 'off', SCOOP_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (text: string) => {
      out += text;
      const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${out}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

test(
  'SIGTERM lets the request in flight finish, refuses new connections, and exits 0',
  { timeout: 60_000 },
  async () => {
    const { child, url } = await startServe(writeBundle());
    const exit = exited(child);
    const done = new Promise<{ length: number; received: number; connection: string | undefined }>(
      (resolve, reject) => {
        const req = request(`${url}/scoop/api/v6/public.asmx/getAnhang?anhangID=900`, (res) => {
          let received = 0;
          res.on('data', (chunk: Buffer) => {
            received += chunk.length;
          });
          // Hold the answer open: read nothing until the server has been told to stop.
          res.pause();
          child.kill('SIGTERM');
          setTimeout(() => res.resume(), 500);
          res.on('end', () =>
            resolve({
              length: Number(res.headers['content-length']),
              received,
              connection: res.headers.connection,
            }),
          );
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      },
    );
    await new Promise((r) => setTimeout(r, 250));
    await assert.rejects(
      fetch(`${url}/scoop/api/v6/public.asmx/getAnhang?anhangID=900`),
      'no new connections',
    );
    const result = await done;
    assert.equal(result.received, result.length, 'the answer in flight was sent whole');
    assert.ok(result.length > 24 * 1024 * 1024, 'a large answer');
    assert.equal(await exit, 0);
  },
);

/** A connection that sent `data`; resolves, once the server closes it, with when that was. */
function openSending(url: string, data: string): { socket: Socket; closed: Promise<number> } {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1', () => socket.write(data));
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
  return { socket, closed };
}

test(
  'SIGTERM cuts a request still stalled after SCOOP_SHUTDOWN_TIMEOUT_MS, closes idle connections at once, and exits 0',
  { timeout: 60_000 },
  async () => {
    const shutdownMs = 1000;
    const { child, url } = await startServe(
      path.resolve('examples/demo-bundle'),
      // Long request timeouts, so only the shutdown cuts the stalled request.
      {
        SCOOP_SHUTDOWN_TIMEOUT_MS: String(shutdownMs),
        SCOOP_HEADERS_TIMEOUT_MS: '60000',
        SCOOP_REQUEST_TIMEOUT_MS: '60000',
        SCOOP_KEEP_ALIVE_TIMEOUT_MS: '60000',
      },
      path.join(dir, 'stalled.db'),
    );
    const exit = exited(child);
    // A body announced as 100 bytes, of which 10 ever come.
    const stalled = openSending(
      url,
      'POST /scoop/api/v6/public.asmx/getBereich HTTP/1.1\r\nHost: x\r\n' +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nbereichID=',
    );
    // A keep-alive connection that has had its answer and sits idle.
    const idle = openSending(
      url,
      'GET /scoop/api/v6/public.asmx/getBereich?bereichID=1 HTTP/1.1\r\nHost: x\r\n\r\n',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const signalled = performance.now();
    child.kill('SIGTERM');
    const [idleClosed, stalledClosed, code] = await Promise.all([idle.closed, stalled.closed, exit]);
    const exitedAt = performance.now();
    assert.equal(code, 0);
    assert.ok(idleClosed - signalled < 500, `the idle connection closed after ${idleClosed - signalled} ms`);
    const cutAfter = stalledClosed - signalled;
    assert.ok(cutAfter >= shutdownMs - 100, `the stalled request was cut after only ${cutAfter} ms`);
    assert.ok(cutAfter < shutdownMs + 2000, `the stalled request was cut only after ${cutAfter} ms`);
    assert.ok(exitedAt - signalled < shutdownMs + 3000, `exited ${exitedAt - signalled} ms after SIGTERM`);
  },
);

test('SIGTERM sent as soon as the listening line is read stops the server cleanly (exit 0)', async () => {
  // The server once announced itself before it listened for SIGTERM, so a supervisor
  // quick enough (here, under the load of the whole test suite) met node's default
  // action instead: killed by the signal, no exit code. Under two busy CPU hogs that was
  // 5 of 25 starts.
  const db = path.join(dir, 'quick-stop.db');
  const exits: Array<number | null> = [];
  for (let i = 0; i < 10; i++) {
    const serve = serves.start([], { SCOOP_DB: db });
    await listeningUrl(serve);
    serve.child.kill('SIGTERM');
    exits.push(await serve.exited);
  }
  assert.deepEqual(
    exits,
    exits.map(() => 0),
  );
});
