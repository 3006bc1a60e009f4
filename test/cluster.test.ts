/**
 * `scoop serve --workers 2`: requests reach both workers (told apart by the pid in their
 * per-request log lines); a worker killed with SIGKILL is replaced while the service
 * stays available; the primary's admin listener answers for all workers; SIGTERM on the
 * primary lets every worker drain and exits 0; a cluster whose workers cannot start
 * exits 1.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { restartDelay } from '../src/server/cluster.ts';
import { SettingsError, serveSettings } from '../src/server/settings.ts';
import { bundleJson, writeBundleFiles } from './support/bundles.ts';
import {
  alive,
  eventually,
  getFresh,
  type LogLine,
  listeningUrl,
  type ServeProcess,
  serveProcesses,
} from './support/serve-process.ts';

const SMALL = '/scoop/api/v6/public.asmx/getAnhang?anhangID=901';
const BIG = '/scoop/api/v6/public.asmx/getAnhang?anhangID=900';
/**
 * The tolerance of the availability check: the poller sends one request at a time, each on
 * a new connection, without retries; killing a worker may fail the request that was on it
 * at that moment (reset), and the next one, whose connection the primary may have handed to
 * the worker before it learnt that it died (no answer: seen in about half the runs). Every
 * other request must succeed.
 */
const TOLERATED_FAILURES = 2;

// Processes first (hooks run in order), then their folder.
const serves = serveProcesses();
const dir = mkdtempSync(path.join(tmpdir(), 'scoop-cluster-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function writeBundle(): string {
  const bundle = path.join(dir, 'bundle');
  mkdirSync(bundle);
  writeBundleFiles(
    bundle,
    bundleJson({
      anhaenge: [
        { anhangID: 900, file: 'files/big.bin', filename: 'big.bin', mimetype: 'application/octet-stream' },
        { anhangID: 901, file: 'files/small.txt', filename: 'small.txt', mimetype: 'text/plain' },
      ],
    }),
    { 'files/big.bin': randomBytes(24 * 1024 * 1024), 'files/small.txt': 'klein' },
  );
  return bundle;
}

const isRequest = (prefix: string) => (l: LogLine) =>
  l.msg === 'request' && String(l.reqId).startsWith(prefix);

/** `count` requests one after another, each on its own connection; the answering pids from the log. */
async function spread(serve: ServeProcess, url: string, prefix: string, count: number) {
  for (let i = 0; i < count; i++) {
    const answer = await getFresh(`${url}${SMALL}`, { 'x-request-id': `${prefix}${i}` });
    assert.equal(answer.status, 200, answer.body);
  }
  await eventually(() => serve.lines.filter(isRequest(prefix)).length === count, 'a log line each');
  const byPid = new Map<number, number>();
  for (const line of serve.lines.filter(isRequest(prefix))) {
    byPid.set(Number(line.pid), (byPid.get(Number(line.pid)) ?? 0) + 1);
  }
  return byPid;
}

interface PollResult {
  ok: number;
  failures: string[];
  /** Longest time between two successful answers. */
  maxGapMs: number;
}

/** Retry-free polling until `done()` (bounded by `limitMs`). */
async function poll(url: string, done: () => boolean, limitMs: number): Promise<PollResult> {
  const result: PollResult = { ok: 0, failures: [], maxGapMs: 0 };
  const end = Date.now() + limitMs;
  let lastOk = Date.now();
  while (!done() && Date.now() < end) {
    try {
      const answer = await getFresh(`${url}${SMALL}`);
      if (answer.status !== 200) throw new Error(`status ${answer.status}`);
      result.ok++;
      result.maxGapMs = Math.max(result.maxGapMs, Date.now() - lastOk);
      lastOk = Date.now();
    } catch (error) {
      result.failures.push((error as Error).message);
    }
  }
  return result;
}

async function metric(admin: string, name: string): Promise<number> {
  const text = await (await fetch(`${admin}/metrics`)).text();
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  assert.ok(match, `${name} in the aggregated metrics`);
  return Number(match[1]);
}

test('settings: --workers and SCOOP_WORKERS, 1 by default; the restart back-off', () => {
  assert.equal(serveSettings({}, {}).workers, 1);
  assert.equal(serveSettings({}, { SCOOP_WORKERS: '3' }).workers, 3);
  assert.equal(serveSettings({ workers: '2' }, { SCOOP_WORKERS: '3' }).workers, 2);
  assert.throws(() => serveSettings({ workers: '0' }, {}), SettingsError);
  assert.deepEqual([0, 1, 2, 3, 20].map(restartDelay), [100, 200, 400, 800, 30_000]);
});

describe('serve --workers 2', () => {
  let serve: ServeProcess;
  let url: string;
  let admin: string;
  let workers: number[];

  before(async () => {
    serve = serves.start(
      ['--workers', '2', '--port', '0', '--db', path.join(dir, 'scoop.db'), '--seed', writeBundle()],
      { SCOOP_ADMIN_PORT: '0' },
    );
    const ready = await listeningUrl(serve, 2);
    url = String(ready.url);
    admin = String(ready.admin);
    workers = serve.lines.filter((l) => l.msg === 'worker started').map((l) => Number(l.worker));
    assert.equal(workers.length, 2);
    assert.ok(!workers.includes(serve.pid), 'the workers are processes of their own');
  });

  test('requests are answered by both workers', async () => {
    const byPid = await spread(serve, url, 'spread-', 40);
    assert.deepEqual([...byPid.keys()].sort(), [...workers].sort(), 'both workers, never the primary');
    for (const [pid, count] of byPid) assert.ok(count >= 10, `worker ${pid} answered ${count} of 40`);
  });

  test('the admin listener of the primary answers for all workers', async () => {
    assert.equal((await fetch(`${admin}/healthz`)).status, 200);
    const ready = await fetch(`${admin}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), {
      status: 'ready',
      contentVersion: 1,
      workers: { ready: 2, listening: 2, expected: 2 },
    });
    const answered = serve.lines.filter((l) => l.msg === 'request' && l.op === 'getAnhang').length;
    const total = await metric(
      admin,
      'scoop_requests_total\\{operation="getAnhang",binding="httpget",outcome="ok"\\}',
    );
    assert.equal(total, answered, 'the sum over both workers');
    assert.equal(await metric(admin, 'scoop_content_version'), 1, 'a store gauge is not summed');
    assert.equal(await metric(admin, 'scoop_workers_listening'), 2);
  });

  test('a worker killed with SIGKILL is replaced; the service stays available', async (t) => {
    const [victim, survivor] = workers as [number, number];
    const replacement = serve.line(
      (l) => typeof l.url === 'string' && typeof l.pid === 'number' && !workers.includes(l.pid),
    );
    let replaced = false;
    let after = 0;
    void replacement.then(() => {
      replaced = true;
    });
    const polling = poll(url, () => replaced && ++after > 30, 15_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const killedAt = Date.now();
    process.kill(victim, 'SIGKILL');
    const newcomer = await replacement;
    const result = await polling;
    t.diagnostic(
      `replaced in ${Number(newcomer.time) - killedAt} ms; ${result.ok} answered, ` +
        `${result.failures.length} failed, longest gap ${result.maxGapMs} ms`,
    );
    assert.ok(result.failures.length <= TOLERATED_FAILURES, `failed requests: ${result.failures.join('; ')}`);
    assert.ok(result.ok > 30);
    const exitLine = await serve.line((l) => l.msg === 'worker exited; starting another');
    assert.equal(exitLine.worker, victim);
    assert.equal(exitLine.signal, 'SIGKILL');
    workers = [survivor, Number(newcomer.pid)];
    const byPid = await spread(serve, url, 'after-', 40);
    assert.deepEqual([...byPid.keys()].sort(), [...workers].sort(), 'the survivor and the new worker');
    assert.equal(await metric(admin, 'scoop_worker_restarts_total'), 1);
    assert.equal((await fetch(`${admin}/readyz`)).status, 200);
  });

  test('SIGTERM on the primary lets the workers drain, then exits 0', async () => {
    const done = new Promise<{ length: number; received: number }>((resolve, reject) => {
      const req = request(`${url}${BIG}`, { agent: false }, (res) => {
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
        });
        // Hold the answer open: read nothing until the cluster has been told to stop.
        res.pause();
        serve.child.kill('SIGTERM');
        setTimeout(() => res.resume(), 500);
        res.on('end', () => resolve({ length: Number(res.headers['content-length']), received }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    const result = await done;
    assert.ok(result.length > 24 * 1024 * 1024, 'a large answer');
    assert.equal(result.received, result.length, 'the answer in flight was sent whole');
    assert.equal(await serve.exited, 0);
    for (const pid of workers) assert.ok(!alive(pid), `worker ${pid} has exited`);
    assert.equal(serve.lines.at(-1)?.msg, 'stopped');
    assert.equal(serve.lines.filter((l) => l.msg === 'stopped').length, 3, 'both workers and the primary');
  });
});

test('a cluster whose workers cannot listen exits 1', { timeout: 30_000 }, async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const port = (taken.address() as { port: number }).port;
    const serve = serves.start(['--workers', '2', '--port', String(port), '--db', path.join(dir, 'x.db')]);
    assert.equal(await serve.exited, 1);
    assert.ok(serve.lines.some((l) => l.msg === 'a worker exited before the cluster was serving; stopping'));
  } finally {
    taken.close();
  }
});

test(
  'a worker that does not exit in time is killed, and the primary exits 1',
  { timeout: 30_000 },
  async () => {
    const serve = serves.start(['--workers', '2', '--port', '0', '--db', path.join(dir, 'stuck.db')], {
      SCOOP_SHUTDOWN_TIMEOUT_MS: '100',
    });
    await listeningUrl(serve, 2);
    const workers = serve.lines.filter((l) => l.msg === 'worker started').map((l) => Number(l.worker));
    process.kill(workers[0]!, 'SIGSTOP');
    const stopping = Date.now();
    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 1);
    const took = Date.now() - stopping;
    assert.ok(took >= 3000 && took < 8000, `SCOOP_SHUTDOWN_TIMEOUT_MS + 3 s, not ${took} ms`);
    assert.ok(serve.lines.some((l) => l.msg === 'workers did not exit in time; killing them'));
    for (const pid of workers) assert.ok(!alive(pid), `worker ${pid} is gone`);
  },
);
