/**
 * `scoop serve` and the binary text cache's folder (server/text-file-cache.ts): a folder
 * the operator chose must be usable; the default one, when it is not, only turns the
 * cache off, with a warning, and the service starts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scratch } from './support/bundles.ts';

const s = scratch();
const BIN = path.resolve('bin/scoop.js');

/** Runs `scoop serve` until it listens (then stops it) or exits; what it printed. */
function serve(env: Record<string, string>) {
  const { SCOOP_DB: _db, SCOOP_VARIANT_DIR: _v, SCOOP_BINARY_CACHE_DIR: _b, ...inherited } = process.env;
  return new Promise<{ code: number | null; listened: boolean; stdout: string; stderr: string }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'serve'], {
        cwd: s.root,
        env: { ...inherited, SCOOP_PORT: '0', SCOOP_ADMIN_PORT: 'off', SCOOP_LOG_LEVEL: 'info', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let listened = false;
      child.stdout.setEncoding('utf8').on('data', (text: string) => {
        stdout += text;
        if (!listened && stdout.includes('scoop listening on')) {
          listened = true;
          child.kill('SIGTERM');
        }
      });
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
      });
      child.on('error', reject).on('close', (code) => resolve({ code, listened, stdout, stderr }));
      setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
    },
  );
}

describe('scoop serve and the binary cache folder', () => {
  test('refuses to start with one line naming SCOOP_BINARY_CACHE_DIR when the chosen folder cannot be used', async () => {
    const blocker = path.join(s.dir(), 'a-file');
    writeFileSync(blocker, '');
    const dir = path.join(blocker, 'binaries');
    const run = await serve({ SCOOP_DB: path.join(s.dir(), 'scoop.db'), SCOOP_BINARY_CACHE_DIR: dir });
    assert.equal(run.code, 1);
    assert.equal(run.listened, false);
    const lines = run.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0]!, /^scoop serve: SCOOP_BINARY_CACHE_DIR .* cannot be used/);
    assert.ok(lines[0]!.includes(dir), lines[0]);
    assert.match(lines[0]!, /ENOTDIR/);
    assert.match(lines[0]!, /SCOOP_BINARY_CACHE_BYTES=0/);
  });

  test('with SCOOP_BINARY_CACHE_BYTES=0 the chosen folder is not used, and it serves', async () => {
    const blocker = path.join(s.dir(), 'a-file');
    writeFileSync(blocker, '');
    const run = await serve({
      SCOOP_DB: path.join(s.dir(), 'scoop.db'),
      SCOOP_BINARY_CACHE_DIR: path.join(blocker, 'binaries'),
      SCOOP_BINARY_CACHE_BYTES: '0',
    });
    assert.ok(run.listened, run.stdout + run.stderr);
  });

  test('an unusable default folder (beside variants/) turns the cache off with a warning, and it serves', async () => {
    const root = s.dir();
    mkdirSync(path.join(root, 'variants'));
    writeFileSync(path.join(root, 'binaries'), 'a file where the folder would be');
    const run = await serve({
      SCOOP_DB: path.join(root, 'scoop.db'),
      SCOOP_VARIANT_DIR: path.join(root, 'variants'),
    });
    assert.ok(run.listened, run.stdout + run.stderr);
    assert.match(run.stdout, /binary cache folder not usable; serving without it/);
  });
});
