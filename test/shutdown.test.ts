/**
 * SIGTERM drains: the server stops taking connections, lets a request in flight finish
 * (here a large attachment the client reads slowly) and exits 0.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';

const dir = mkdtempSync(path.join(tmpdir(), 'scoop-shutdown-'));
after(() => rmSync(dir, { recursive: true, force: true }));

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

function startServe(bundle: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['bin/scoop.js', 'serve', '--port', '0', '--db', path.join(dir, 'scoop.db'), '--seed', bundle],
    {
      env: { ...process.env, SCOOP_ADMIN_PORT: 'off', SCOOP_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
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
