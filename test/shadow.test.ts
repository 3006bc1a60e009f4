/**
 * `serve --shadow` in this process: a scoop instance with one changed article shadows
 * another scoop instance (the "original") and reports exactly that difference — in its
 * metric, a warn log line and a kept exchange — while its clients get the answers they
 * would get without it. A dead or slow original costs the clients nothing: their
 * latency and statuses are measured with and without one.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { bundleIds, requestsFor } from '../src/migrate/compare/from-bundle.ts';
import type { ReplayRequest } from '../src/migrate/compare/replay-request.ts';
import type { ReportEntry } from '../src/migrate/compare/report.ts';
import { createMetrics, type Metrics } from '../src/observe/metrics.ts';
import type { BindingName } from '../src/protocol/binding.ts';
import { Shadow } from '../src/server/shadow.ts';
import { ShadowFolder } from '../src/server/shadow-folder.ts';
import { scratch } from './support/bundles.ts';
import { CHANGED_ARTIKEL_ID, CHANGED_TOKEN, startChangedFixture } from './support/changed-article.ts';
import { DATABASES } from './support/databases.ts';
import { type Fixture, REFERENCE_BUNDLE, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

const BINDINGS: readonly BindingName[] = ['soap11', 'soap12', 'httpget', 'httppost'];
const NAMESPACE = 'http://scoop.example.org/api';
/** The shadowing instance's clients' token; the original knows only REFERENCE_TOKEN. */
const CLIENT_TOKEN = CHANGED_TOKEN;

const work = scratch();

type LogLine = Record<string, unknown>;

function capturingLogger(): { logger: pino.Logger; lines: LogLine[]; text: () => string } {
  const raw: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => raw.push(line) });
  return {
    logger,
    get lines() {
      return raw.map((line) => JSON.parse(line) as LogLine);
    },
    text: () => raw.join(''),
  };
}

async function shadowValues(
  metrics: Metrics,
): Promise<Array<{ labels: Record<string, string>; value: number }>> {
  return (await metrics.shadowRequests.get()).values.filter((v) => v.value > 0);
}

async function send(
  fixture: Fixture,
  request: ReplayRequest,
): Promise<{ status: number; body: Buffer; ms: number }> {
  const sent = request.prepare(CLIENT_TOKEN);
  const started = performance.now();
  const response = await fetch(`${fixture.server.url}${sent.path}`, {
    method: sent.method,
    headers: sent.headers,
    ...(sent.method === 'POST' ? { body: sent.body } : {}),
  });
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, body, ms: performance.now() - started };
}

/** A fixture with the changed article whose clients use CLIENT_TOKEN. */
function changedFixture(
  overrides: Parameters<typeof startFixture>[0],
  database = DATABASES[0]!,
): Promise<Fixture> {
  return startChangedFixture(work, overrides, database);
}

for (const db of DATABASES) {
  describe(`one changed article (${db.name})`, () => {
    let original: Fixture;
    let plain: Fixture;
    let shadowing: Fixture;
    let shadow: Shadow;
    let folder: ShadowFolder;
    const metrics = createMetrics();
    const log = capturingLogger();
    const dir = path.join(work.dir(), 'shadow');
    before(async () => {
      if (db.skip) return;
      original = await startFixture();
      plain = await changedFixture({}, db);
      folder = await ShadowFolder.open(
        dir,
        { original: original.server.url, tally: () => shadow.tally() },
        (e) => {
          throw e;
        },
      );
      shadow = new Shadow({
        url: new URL(original.server.url),
        sample: 1,
        token: REFERENCE_TOKEN,
        concurrency: 4,
        queue: 10_000,
        timeoutMs: 10_000,
        logger: log.logger,
        metrics,
        folder,
      });
      shadowing = await changedFixture({ shadow, metrics, logger: log.logger }, db);
    });
    after(async () => {
      await shadow?.close();
      await Promise.all([original?.stop(), plain?.stop(), shadowing?.stop()]);
    });

    db.test('the clients get the same answers, and exactly that difference is reported', async () => {
      const requests = [...requestsFor(await bundleIds(REFERENCE_BUNDLE), BINDINGS, NAMESPACE)];
      for (const request of requests) {
        const [withShadow, without] = await Promise.all([send(shadowing, request), send(plain, request)]);
        assert.equal(withShadow.status, without.status, request.description);
        assert.deepEqual(withShadow.body, without.body, request.description);
      }
      await shadow.settled();
      await folder.settled();

      const values = await shadowValues(metrics);
      const different = values.filter((v) => v.labels.outcome === 'different');
      assert.deepEqual(
        different.map((v) => `${v.labels.operation} ${v.labels.binding} ${v.value}`).sort(),
        BINDINGS.map((b) => `getArtikelDetails ${b} 1`).sort(),
      );
      assert.deepEqual(
        values.filter((v) => v.labels.outcome !== 'same' && v.labels.outcome !== 'different'),
        [],
      );
      const same = values.filter((v) => v.labels.outcome === 'same').reduce((n, v) => n + v.value, 0);
      assert.equal(same + 4, requests.length, 'every request was replayed');

      const warnings = log.lines.filter((l) => l.msg === 'shadow: the original answered differently');
      assert.equal(warnings.length, 4);
      for (const line of warnings) {
        assert.equal(line.level, 40);
        assert.equal(line.op, 'getArtikelDetails');
        assert.match(String(line.reqId), /^[0-9a-f-]{36}$/);
        assert.match(String(line.diff), /^-.*Straßenfest am Rathausplatz/m);
        assert.match(String(line.diff), /^\+.*abgesagt/m);
      }
      // Never a token or an e-mail address in the log.
      for (const secret of [CLIENT_TOKEN, REFERENCE_TOKEN, '@example.org', 'anna'])
        assert.ok(!log.text().includes(secret), `the log holds ${secret}`);

      const kept = readdirSync(dir).filter((n) => n.endsWith('.json'));
      assert.equal(kept.length, 4);
      for (const name of kept) {
        const entry = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as ReportEntry;
        assert.equal(entry.operation, 'getArtikelDetails');
        assert.equal(entry.outcome, 'different');
        assert.ok(existsSync(path.join(dir, name.replace(/\.json$/, '.html'))));
        const request = JSON.stringify(entry.request);
        assert.ok(!request.includes(CLIENT_TOKEN) && !request.includes(REFERENCE_TOKEN), request);
        assert.ok(request.includes(`${CHANGED_ARTIKEL_ID}`), request);
      }
      await shadow.close();
      const report = readFileSync(path.join(dir, 'report.html'), 'utf8');
      assert.equal(report.match(/<section /g)?.length, 4);
    });
  });
}

/** A shadow replaying every request to `url`, with a 1 s timeout and no log. */
function quietShadow(url: string, metrics: Metrics, bounds: { concurrency: number; queue: number }): Shadow {
  return new Shadow({
    url: new URL(url),
    sample: 1,
    token: REFERENCE_TOKEN,
    ...bounds,
    timeoutMs: 1000,
    logger: pino({ level: 'silent' }),
    metrics,
  });
}

/** Latency percentiles of `n` requests, `concurrency` at a time, and the statuses seen. */
async function measure(
  fixture: Fixture,
  requests: readonly ReplayRequest[],
  n: number,
  concurrency: number,
): Promise<{ p50: number; p95: number; statuses: Map<string, number> }> {
  const times: number[] = [];
  const statuses = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const request = requests[next++ % requests.length]!;
        const { status, ms } = await send(fixture, request);
        times.push(ms);
        const key = `${request.description} ${request.binding} ${status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
    }),
  );
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n * 0.5)]!, p95: times[Math.floor(n * 0.95)]!, statuses };
}

describe('a dead or slow original costs the clients nothing', () => {
  let slow: TcpServer;
  let slowPort = 0;
  let deadPort = 0;
  const sockets = new Set<Socket>();
  before(async () => {
    // Accepts, reads, never answers.
    slow = createTcpServer((socket) => {
      sockets.add(socket);
      socket.on('data', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    slowPort = (slow.address() as { port: number }).port;
    // A port that was just free, and is closed again: connections are refused.
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    deadPort = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });
  after(() => {
    for (const socket of sockets) socket.destroy();
    slow.close();
  });

  test('latency percentiles and statuses with the shadow to each are those without', async () => {
    const requests = [...requestsFor(await bundleIds(REFERENCE_BUNDLE), BINDINGS, NAMESPACE)];
    const n = 400;
    const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
    const tallies: Record<string, ReturnType<Shadow['tally']>> = {};
    for (const [name, url] of [
      ['none', undefined],
      ['dead', `http://127.0.0.1:${deadPort}`],
      ['slow', `http://127.0.0.1:${slowPort}`],
    ] as const) {
      const metrics = createMetrics();
      const shadow = url === undefined ? undefined : quietShadow(url, metrics, { concurrency: 2, queue: 16 });
      const fixture = await changedFixture({ shadow, metrics });
      try {
        await measure(fixture, requests, 100, 8); // warm-up
        results[name] = await measure(fixture, requests, n, 8);
        if (shadow) tallies[name] = shadow.tally();
      } finally {
        await fixture.stop();
        await shadow?.close();
      }
    }
    const none = results.none!;
    process.stdout.write(
      `# client latency ms (p50/p95), ${n} requests, 8 at a time: none ${none.p50.toFixed(1)}/${none.p95.toFixed(1)}, ` +
        `dead original ${results.dead!.p50.toFixed(1)}/${results.dead!.p95.toFixed(1)}, ` +
        `slow original ${results.slow!.p50.toFixed(1)}/${results.slow!.p95.toFixed(1)}\n`,
    );
    for (const name of ['dead', 'slow']) {
      const result = results[name]!;
      assert.deepEqual(result.statuses, none.statuses, `${name}: the statuses`);
      // Generous: a shadow that waited for the original would add its 1 s timeout.
      assert.ok(
        result.p50 < Math.max(3 * none.p50, none.p50 + 20),
        `${name} p50 ${result.p50} vs ${none.p50}`,
      );
      assert.ok(
        result.p95 < Math.max(3 * none.p95, none.p95 + 50),
        `${name} p95 ${result.p95} vs ${none.p95}`,
      );
    }
    // The shadow was at work: the dead original's replays failed, the slow one's queue overflowed.
    assert.ok(tallies.dead!.failed > 0, JSON.stringify(tallies.dead));
    assert.ok(tallies.slow!.dropped > 0, JSON.stringify(tallies.slow));
  });

  test('after a replay gets no answer, replays pause rather than knock at a dead original each time', async () => {
    let connections = 0;
    const resetting = createTcpServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => resetting.listen(0, '127.0.0.1', resolve));
    const metrics = createMetrics();
    const port = (resetting.address() as { port: number }).port;
    const shadow = quietShadow(`http://127.0.0.1:${port}`, metrics, { concurrency: 1, queue: 100 });
    const fixture = await changedFixture({ shadow, metrics });
    try {
      const requests = [...requestsFor(await bundleIds(REFERENCE_BUNDLE), ['httpget'], NAMESPACE)];
      for (const request of requests) {
        await send(fixture, request);
        await shadow.settled();
      }
      assert.equal(shadow.tally().failed, requests.length, 'each counts as failed');
      assert.ok(connections <= 2, `${connections} connections for ${requests.length} replays`);
    } finally {
      await fixture.stop();
      await shadow.close();
      resetting.close();
    }
  });
});
