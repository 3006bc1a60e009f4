/**
 * Operators' signals: one JSON log line per request (request id, operation, binding,
 * status, duration, bytes; never a token or an e-mail address), Prometheus metrics and
 * health on the admin listener, and the store-unavailable answer (the rate limit:
 * test/rate-limit.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { ImageService } from '../src/images/image-service.ts';
import { createMetrics, type Metrics } from '../src/observe/metrics.ts';
import { AnswerPack } from '../src/prepare/answer-pack.ts';
import { PackFiller } from '../src/prepare/pack-filler.ts';
import {
  type AdminServer,
  registerAnswerPackMetrics,
  registerImageMetrics,
  registerLogMetrics,
  registerStoreMetrics,
  startAdminServer,
} from '../src/server/admin-server.ts';
import { PRIMARY_METRICS } from '../src/server/cluster.ts';
import { type RunningServer, startServer } from '../src/server/http-server.ts';
import { type ContentStore, StoreUnavailableError } from '../src/store/content-store.ts';
import { DEFAULT_XML_LIMITS } from '../src/xml/reader.ts';
import { importFolder, scratch } from './support/bundles.ts';
import { changedArticleBundle } from './support/changed-article.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

const NS = 'http://scoop.example.org/api';
const files = scratch();

function soap11(
  op: string,
  params: string,
  token?: string,
): { body: string; headers: Record<string, string> } {
  const header = token
    ? `<soap:Header><wsAuthHeader xmlns="${NS}"><token>${token}</token></wsAuthHeader></soap:Header>`
    : '';
  return {
    body: `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">${header}<soap:Body><${op} xmlns="${NS}">${params}</${op}></soap:Body></soap:Envelope>`,
    headers: { 'content-type': 'text/xml; charset=utf-8' },
  };
}

describe('logs and metrics', () => {
  const lines: Record<string, unknown>[] = [];
  let fixture: Fixture;
  let metrics: Metrics;
  let admin: AdminServer;
  let pack: AnswerPack;
  let filler: PackFiller;
  const packDir = mkdtempSync(path.join(tmpdir(), 'scoop-observability-pack-'));

  before(async () => {
    metrics = createMetrics();
    const logger = pino(
      { level: 'info', base: undefined },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    const images = ImageService.uncached();
    pack = AnswerPack.open({ dir: packDir, maxBytes: 16 * 1024 * 1024 });
    fixture = await startFixture({ logger, metrics, images, answerPack: pack });
    registerStoreMetrics(metrics, fixture.store);
    registerImageMetrics(metrics, images);
    // As serve-command.ts fills the pack and registers its metrics.
    filler = new PackFiller({ store: fixture.store, pack });
    filler.start();
    registerAnswerPackMetrics(metrics, pack, filler);
    // As serve-command.ts registers it over its stdout (observe/log-destination.ts).
    registerLogMetrics(metrics, { dropped: 0 });
    admin = await startAdminServer(metrics, fixture.store, '127.0.0.1', 0);
  });
  after(async () => {
    await admin.close();
    await filler.stop();
    await fixture.stop();
    pack.close();
    rmSync(packDir, { recursive: true, force: true });
  });

  test('each request gets one log line with its id, operation, binding, status and sizes', async () => {
    const res = await fetch(`${fixture.server.url}/scoop/api/v6/public.asmx/getBereich?bereichID=1`, {
      headers: { 'x-request-id': 'abc-123' },
    });
    assert.equal(res.headers.get('x-request-id'), 'abc-123');
    const body = await res.text();
    await new Promise((r) => setTimeout(r, 20));
    const line = lines.find((l) => l.reqId === 'abc-123');
    assert.ok(line, 'logged');
    assert.equal(line.op, 'getBereich');
    assert.equal(line.binding, 'httpget');
    assert.equal(line.status, 200);
    assert.equal(line.outcome, 'ok');
    assert.equal(line.bytesOut, Buffer.byteLength(body));
    assert.equal(typeof line.ms, 'number');
    assert.equal(line.path, '/scoop/api/v6/public.asmx/getBereich');
  });

  test('a request id that is not a sane token is replaced by a new, UUID-shaped one', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${fixture.server.url}/scoop/api/v6/public.asmx/getBereich?bereichID=1`, {
        headers: { 'x-request-id': 'bad id <script>' },
      });
      const id = res.headers.get('x-request-id')!;
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      ids.add(id);
    }
    assert.equal(ids.size, 3, 'each request gets an id of its own');
  });

  test('tokens and e-mail addresses never appear in the log', async () => {
    const email = 'geheim.person@example.org';
    await fetch(
      `${fixture.server.url}/scoop/api/v6/scoop.asmx/getAbonnierteNewsletter?email=${encodeURIComponent(email)}`,
      {
        headers: { authorization: `Bearer ${REFERENCE_TOKEN}` },
      },
    );
    const call = soap11('getAbonnierteNewsletter', `<email>${email}</email>`, REFERENCE_TOKEN);
    await fetch(`${fixture.server.url}/scoop/api/v6/scoop.asmx`, { method: 'POST', ...call });
    await fetch(`${fixture.server.url}/scoop/api/v7/scoop.asmx/getNewsletter?token=${REFERENCE_TOKEN}`);
    await new Promise((r) => setTimeout(r, 20));
    const text = JSON.stringify(lines);
    assert.ok(!text.includes(REFERENCE_TOKEN), 'no token');
    assert.ok(!text.includes('geheim'), 'no e-mail address');
  });

  test('/metrics counts requests by operation, binding and outcome, with latency and sizes', async () => {
    await fetch(`${fixture.server.url}/scoop/api/v6/public.asmx/getBereich?bereichID=999`);
    const text = await (await fetch(`${admin.url}/metrics`)).text();
    assert.match(text, /scoop_requests_total\{operation="getBereich",binding="httpget",outcome="ok"\} [1-9]/);
    assert.match(
      text,
      /scoop_requests_total\{operation="getBereich",binding="httpget",outcome="UNKNOWN_ID"\} 1/,
    );
    assert.match(text, /scoop_requests_total\{operation="-",binding="-",outcome="TOKEN_IN_URL"\} 1/);
    assert.match(
      text,
      /scoop_request_duration_seconds_bucket\{le="0.005",operation="getBereich",binding="httpget"\}/,
    );
    assert.match(text, /scoop_requests_in_flight 0/);
    assert.match(text, /scoop_response_body_bytes_count\{binding="httpget"\} [1-9]/);
    assert.match(text, /scoop_content_version 2/);
    assert.match(text, /scoop_imports_committed 2/);
    assert.match(text, /scoop_process_resident_memory_bytes \d/);
  });

  test('the answer pack says how many answers it holds and which version it filled', async () => {
    for (let i = 0; i < 500 && filler.filledVersion === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const text = await (await fetch(`${admin.url}/metrics`)).text();
    assert.match(text, /scoop_answer_pack_filled_version 2/);
    assert.match(text, /scoop_answer_pack_answers [1-9]\d*/);
    assert.match(text, /scoop_answer_pack_bytes [1-9]\d*/);
    assert.match(text, /scoop_answer_pack_moves_total\{move="advanced"\} 0/);
  });

  test('every metric the dashboard and docs/operations.md name is exported', async () => {
    await fetch(`${fixture.server.url}/scoop/api/v6/public.asmx/getBereich?bereichID=1`);
    const text = await (await fetch(`${admin.url}/metrics`)).text();
    const exported = new Set([...text.matchAll(/^# TYPE (\w+)/gm)].map((m) => m[1]));
    const named = new Set<string>();
    for (const source of [
      readFileSync('docs/grafana-dashboard.json', 'utf8'),
      readFileSync('docs/operations.md', 'utf8'),
    ]) {
      for (const m of source.matchAll(/\bscoop_[a-z_]+[a-z]\b/g))
        named.add(m[0].replace(/_(bucket|sum|count)$/, ''));
    }
    for (const name of named) {
      if (name === 'scoop_process_' || name === 'scoop_nodejs_') continue;
      // Only a cluster primary exports these (test/cluster.test.ts).
      if (PRIMARY_METRICS.includes(name)) continue;
      assert.ok(exported.has(name), `${name} is exported`);
    }
  });

  test('/healthz and /readyz answer on the admin listener only', async () => {
    assert.equal((await fetch(`${admin.url}/healthz`)).status, 200);
    const ready = await fetch(`${admin.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready', contentVersion: 2 });
    assert.equal((await fetch(`${fixture.server.url}/metrics`)).status, 404);
    assert.equal((await fetch(`${fixture.server.url}/healthz`)).status, 404);
  });

  // Last: it changes the content.
  test('an import that changes one article moves the pack on, and the move is counted', async () => {
    const answers = pack.size;
    await importFolder(fixture.store, changedArticleBundle(files));
    for (let i = 0; i < 500 && filler.filledVersion !== 3; i++) await new Promise((r) => setTimeout(r, 10));
    const text = await (await fetch(`${admin.url}/metrics`)).text();
    assert.match(text, /scoop_answer_pack_filled_version 3/);
    assert.match(text, /scoop_answer_pack_moves_total\{move="advanced"\} 1/);
    assert.match(text, /scoop_answer_pack_moves_total\{move="emptied"\} 0/);
    assert.equal(pack.size, answers, 'the changed article read again');
  });

  test('no answer names the software or its version', async () => {
    const res = await fetch(`${fixture.server.url}/scoop/api/v6/public.asmx/getBereich?bereichID=1`);
    assert.equal(res.headers.get('server'), null);
    assert.equal(res.headers.get('x-powered-by'), null);
  });
});

/** A store whose reads fail while `down` is set, as when a database server goes away. */
function flaky(store: ContentStore, state: { down: boolean }): ContentStore {
  const fail = () => {
    if (state.down) throw new StoreUnavailableError('store is down');
  };
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      // The synchronous peeks answer "not known now" while the store is down, as the real ones do.
      if (typeof name === 'string' && name.startsWith('peek')) {
        return (...args: unknown[]) =>
          state.down ? undefined : (value as (...a: unknown[]) => unknown).apply(target, args);
      }
      return async (...args: unknown[]) => {
        fail();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe('an unreachable store', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let admin: AdminServer;
  const state = { down: false };

  before(async () => {
    fixture = await startFixture();
    const store = flaky(fixture.store, state);
    server = await startServer(
      {
        store,
        namespace: NS,
        httpAuth: true,
        maxBodyBytes: 1 << 20,
        maxListItems: 16,
        xmlLimits: DEFAULT_XML_LIMITS,
        service: { maxImageDimension: 4096 },
        logger: pino({ level: 'silent' }),
      },
      '127.0.0.1',
      0,
    );
    admin = await startAdminServer(createMetrics(), store, '127.0.0.1', 0);
  });
  after(async () => {
    await admin.close();
    await server.close();
    await fixture.stop();
  });

  test('fails fast with 503 / a Server fault and Retry-After, then recovers by itself', async () => {
    const url = `${server.url}/scoop/api/v6/public.asmx/getBereich?bereichID=1`;
    assert.equal((await fetch(url)).status, 200);
    state.down = true;
    const started = Date.now();
    const down = await fetch(url);
    assert.equal(down.status, 503);
    assert.equal(down.headers.get('retry-after'), '1');
    assert.match(await down.text(), /<code>UNAVAILABLE<\/code>/);
    const call = soap11('getBereich', '<bereichID>1</bereichID>');
    const fault = await fetch(`${server.url}/scoop/api/v6/public.asmx`, { method: 'POST', ...call });
    assert.equal(fault.status, 500);
    assert.equal(fault.headers.get('retry-after'), '1');
    assert.match(await fault.text(), /<faultcode>soap:Server<\/faultcode>/);
    assert.equal((await fetch(`${admin.url}/readyz`)).status, 503);
    assert.ok(Date.now() - started < 1000, 'answered at once');
    state.down = false;
    assert.equal((await fetch(url)).status, 200);
    assert.equal((await fetch(`${admin.url}/readyz`)).status, 200);
  });
});
