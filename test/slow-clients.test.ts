/**
 * Transport limits with small values: a client that stalls its request head, or trickles
 * its body, is cut within the timeout plus node's checking interval and told 408
 * (REQUEST_TIMEOUT); an idle keep-alive connection is closed after the keep-alive timeout;
 * connections beyond the cap are dropped. Refusals node's parser makes (431, framing) and
 * timeouts reach the request log and the metrics like any other refusal.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { createMetrics, type Metrics } from '../src/observe/metrics.ts';
import { checkingIntervalMs } from '../src/server/http-server.ts';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from '../src/server/settings.ts';
import { type Fixture, startFixture } from './support/fixture-server.ts';
import { parseHead } from './support/raw-http.ts';

const PUBLIC = '/scoop/api/v6/public.asmx';

interface Exchange {
  readonly data: Buffer;
  /** When the server closed the connection, in ms after it was opened. */
  readonly closedAfterMs: number;
}

/**
 * Opens a connection, writes `first`, then `drip` every `dripMs` (if given) until the
 * server closes; resolves with everything received.
 */
function exchange(
  port: number,
  first: string,
  drip?: { text: string; everyMs: number; forMs?: number },
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = performance.now();
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(first);
      if (drip) {
        timer = setInterval(() => {
          if (drip.forMs !== undefined && performance.now() - started > drip.forMs) clearInterval(timer);
          else if (socket.writable) socket.write(drip.text);
        }, drip.everyMs);
      }
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {
      // A reset after the server's answer: judged by what was received.
    });
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ data: Buffer.concat(chunks), closedAfterMs: performance.now() - started });
    });
    socket.setTimeout(20_000, () => {
      socket.destroy();
      reject(new Error('the server never closed the connection'));
    });
  });
}

function answers(data: Buffer): Array<{ status: number; headers: Map<string, string>; body: string }> {
  const out = [];
  let rest = data;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const { status, headers } = parseHead(rest.subarray(0, end).toString('latin1'));
    const length = Number(headers.get('content-length') ?? 0);
    out.push({ status, headers, body: rest.subarray(end + 4, end + 4 + length).toString('utf8') });
    rest = rest.subarray(end + 4 + length);
  }
  return out;
}

async function scrape(metrics: Metrics): Promise<string> {
  return metrics.registry.metrics();
}

test('node checks for expired requests at least every second, and never slower than a timeout', () => {
  assert.equal(checkingIntervalMs(DEFAULT_SERVER_LIMITS), 1000);
  assert.equal(checkingIntervalMs({ ...DEFAULT_SERVER_LIMITS, headersTimeoutMs: 300 }), 300);
  assert.equal(
    checkingIntervalMs({ ...DEFAULT_SERVER_LIMITS, headersTimeoutMs: 300, requestTimeoutMs: 200 }),
    200,
  );
});

describe('slow clients', () => {
  const limits: ServerLimits = {
    ...DEFAULT_SERVER_LIMITS,
    headersTimeoutMs: 500,
    requestTimeoutMs: 1000,
    keepAliveTimeoutMs: 400,
  };
  const interval = checkingIntervalMs(limits);
  const lines: Record<string, unknown>[] = [];
  let fixture: Fixture;
  let metrics: Metrics;
  let port: number;

  before(async () => {
    metrics = createMetrics();
    const logger = pino(
      { level: 'info', base: undefined },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    fixture = await startFixture({ logger, metrics }, undefined, undefined, limits);
    port = Number(new URL(fixture.server.url).port);
  });
  after(async () => {
    await fixture.stop();
  });

  test('a client that stalls its request head is cut after headersTimeout with 408', async () => {
    const { data, closedAfterMs } = await exchange(
      port,
      `GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1\r\nHost: x\r\n`,
    );
    const [answer, ...more] = answers(data);
    assert.equal(answer?.status, 408, data.toString('latin1'));
    assert.match(answer!.body, /<code>REQUEST_TIMEOUT<\/code>/);
    assert.equal(answer!.headers.get('connection'), 'close');
    assert.deepEqual(more, []);
    assert.ok(closedAfterMs >= limits.headersTimeoutMs - 50, `cut after ${closedAfterMs} ms`);
    assert.ok(closedAfterMs < limits.headersTimeoutMs + interval + 300, `cut only after ${closedAfterMs} ms`);
  });

  test('a client that sends its head a byte at a time is cut the same way', async () => {
    const { data, closedAfterMs } = await exchange(port, `GET ${PUBLIC}/getBereich HTTP/1.1\r\nX-A: `, {
      text: 'a',
      everyMs: 50,
    });
    assert.equal(answers(data)[0]?.status, 408, data.toString('latin1'));
    assert.ok(closedAfterMs < limits.headersTimeoutMs + interval + 300, `cut only after ${closedAfterMs} ms`);
  });

  test('a client that trickles its body is cut after requestTimeout with 408', async () => {
    const head = [
      `POST ${PUBLIC}/getBereich HTTP/1.1`,
      'Host: x',
      'Content-Type: application/x-www-form-urlencoded',
      'Content-Length: 1000',
      '',
      'bereichID=1',
    ].join('\r\n');
    const { data, closedAfterMs } = await exchange(port, head, { text: '&', everyMs: 100 });
    const [answer, ...more] = answers(data);
    assert.equal(answer?.status, 408, data.toString('latin1'));
    assert.match(answer!.body, /<code>REQUEST_TIMEOUT<\/code>/);
    assert.deepEqual(more, [], 'one answer only');
    assert.ok(closedAfterMs >= limits.requestTimeoutMs - 50, `cut after ${closedAfterMs} ms`);
    assert.ok(closedAfterMs < limits.requestTimeoutMs + interval + 300, `cut only after ${closedAfterMs} ms`);
  });

  test('an idle keep-alive connection is closed after keepAliveTimeout', async () => {
    const started = performance.now();
    const { data, closedAfterMs } = await exchange(
      port,
      `GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    const [answer] = answers(data);
    assert.equal(answer?.status, 200);
    // Node keeps an idle connection 1 s longer than the Keep-Alive timeout it advertises, so a
    // client that goes by the advertised value never sends into a connection being closed.
    assert.ok(closedAfterMs >= limits.keepAliveTimeoutMs, `closed after ${closedAfterMs} ms`);
    assert.ok(
      closedAfterMs < limits.keepAliveTimeoutMs + 1000 + 400,
      `closed only after ${closedAfterMs} ms`,
    );
    assert.ok(performance.now() - started < 2500);
  });

  test('a keep-alive connection in use stays open across requests', async () => {
    const request = `GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1\r\nHost: x\r\n\r\n`;
    const { data, closedAfterMs } = await exchange(port, request, {
      text: request,
      everyMs: 150,
      forMs: 1200,
    });
    // A request every 150 ms, each within the 400 ms keep-alive timeout, for 1.2 s: the
    // connection stays open throughout and closes once it is idle.
    assert.ok(answers(data).filter((a) => a.status === 200).length >= 6);
    assert.ok(closedAfterMs > 1200, `closed after ${closedAfterMs} ms`);
  });

  test('timeouts and refusals by the HTTP parser are in the request log and the metrics', async () => {
    const before = lines.length;
    await exchange(port, `GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1\r\nHost: x\r\n`);
    await exchange(
      port,
      `GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    await exchange(
      port,
      `POST ${PUBLIC}/getBereich HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const logged = lines.slice(before).filter((l) => l.msg === 'request');
    const outcomes = logged.map((l) => [l.outcome, l.status]);
    assert.deepEqual(outcomes, [
      ['REQUEST_TIMEOUT', 408],
      ['HEADERS_TOO_LARGE', 431],
      ['BAD_REQUEST', 400],
    ]);
    for (const line of logged) {
      assert.match(String(line.reqId), /^[0-9a-f-]{36}$/);
      assert.ok(typeof line.reason === 'string' && line.reason !== '', 'node says why');
      assert.ok(Number(line.bytesOut) > 0);
    }
    const text = await scrape(metrics);
    assert.match(text, /scoop_requests_total\{operation="-",binding="-",outcome="REQUEST_TIMEOUT"\} [2-9]/);
    assert.match(text, /scoop_requests_total\{operation="-",binding="-",outcome="HEADERS_TOO_LARGE"\} 1/);
    assert.match(text, /scoop_requests_total\{operation="-",binding="-",outcome="BAD_REQUEST"\} [1-9]/);
  });

  test('a body that took too long is logged once, as the 408 the client got', async () => {
    const before = lines.length;
    const head = `POST ${PUBLIC}/getBereich HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nbe`;
    await exchange(port, head);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const logged = lines.slice(before).filter((l) => l.msg === 'request');
    assert.equal(logged.length, 1, JSON.stringify(logged));
    assert.equal(logged[0]!.outcome, 'REQUEST_TIMEOUT');
    assert.equal(logged[0]!.status, 408);
    assert.equal(logged[0]!.path, `${PUBLIC}/getBereich`);
  });
});

describe('SCOOP_MAX_CONNECTIONS', () => {
  let fixture: Fixture;
  let metrics: Metrics;
  let port: number;
  const open: Socket[] = [];

  before(async () => {
    metrics = createMetrics();
    fixture = await startFixture({ metrics }, undefined, undefined, {
      ...DEFAULT_SERVER_LIMITS,
      maxConnections: 3,
    });
    port = Number(new URL(fixture.server.url).port);
  });
  after(async () => {
    for (const socket of open) socket.destroy();
    await fixture.stop();
  });

  const connected = () =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
      socket.on('error', reject);
      open.push(socket);
    });

  test('connections beyond the cap are dropped at once; a freed place is taken again', async () => {
    for (let i = 0; i < 3; i++) await connected();
    // The server counts a connection once it accepted it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const dropped = await exchange(port, `GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1\r\nHost: x\r\n\r\n`);
    assert.equal(dropped.data.length, 0, 'no answer on a dropped connection');
    assert.ok(dropped.closedAfterMs < 1000, `dropped after ${dropped.closedAfterMs} ms`);
    assert.match(await scrape(metrics), /scoop_connections_dropped_total 1\b/);

    open.shift()!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const served = await exchange(
      port,
      `GET ${PUBLIC}/getBereich?bereichID=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    assert.equal(answers(served.data)[0]?.status, 200);
  });
});
