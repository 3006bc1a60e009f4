/**
 * What `scoop serve` writes to its log besides the request lines' timing: the level by
 * name, the time in ISO 8601, the client's address (and, behind a trusted proxy, the one
 * it forwarded for), a line when --seed is skipped, and one when the content changes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scoopArgs } from '../bench/node-flags.ts';
import { scratch } from './support/bundles.ts';
import { getFresh, listeningUrl, serveProcesses } from './support/serve-process.ts';

const DEMO = path.resolve('examples/demo-bundle');
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const s = scratch();
const serves = serveProcesses();

describe('log lines of scoop serve', () => {
  test('a request line names its level, ISO time and client; behind a trusted proxy the forwarded address too', async () => {
    const db = s.dbPath();
    const serve = serves.start(['--port', '0', '--db', db, '--seed', DEMO], { SCOOP_TRUST_PROXY: 'on' });
    const { url } = await listeningUrl(serve);
    await getFresh(`${url}/scoop/api/v6/public.asmx/getBereich?bereichID=1`, {
      'x-forwarded-for': '203.0.113.9, 10.0.0.2',
    });
    const line = await serve.line((l) => l.msg === 'request');
    assert.equal(line.level, 'info');
    assert.match(String(line.time), ISO_TIME);
    assert.equal(line.client, '127.0.0.1');
    assert.equal(line.forwardedFor, '203.0.113.9, 10.0.0.2');
    serve.child.kill('SIGTERM');
    await serve.exited;
  });

  test('without a trusted proxy, X-Forwarded-For is not logged', async () => {
    const serve = serves.start(['--port', '0', '--db', s.dbPath(), '--seed', DEMO]);
    const { url } = await listeningUrl(serve);
    await getFresh(`${url}/scoop/api/v6/public.asmx/getBereich?bereichID=1`, {
      'x-forwarded-for': '203.0.113.9',
    });
    const line = await serve.line((l) => l.msg === 'request');
    assert.equal(line.client, '127.0.0.1');
    assert.equal('forwardedFor' in line, false);
    serve.child.kill('SIGTERM');
    await serve.exited;
  });

  test('--seed on a store with content says it was skipped; an import while serving is logged', async () => {
    const db = s.dbPath();
    const first = serves.start(['--port', '0', '--db', db, '--seed', DEMO]);
    await listeningUrl(first);
    first.child.kill('SIGTERM');
    await first.exited;

    const serve = serves.start(['--port', '0', '--db', db, '--seed', DEMO]);
    await listeningUrl(serve);
    const skipped = serve.lines.find((l) => String(l.msg).startsWith('seed skipped'));
    assert.ok(skipped, 'a line says the seed was skipped');
    assert.equal(skipped.contentVersion, 1);

    const bundle = s.bundle({
      format: 'scoop-bundle/1',
      mode: 'upsert',
      bereiche: [{ bereichID: 77, name: 'Neu' }],
    });
    const imported = spawnSync(process.execPath, scoopArgs(['import', '--db', db, bundle]), {
      encoding: 'utf8',
    });
    assert.equal(imported.status, 0, imported.stderr);
    const changed = await serve.line((l) => l.msg === 'content version changed', 5000);
    assert.equal(changed.previous, 1);
    assert.equal(changed.contentVersion, 2);
    serve.child.kill('SIGTERM');
    await serve.exited;
  });
});
