/**
 * http1.ts against servers that answer with raw bytes: every framing (Content-Length,
 * chunked with extensions and trailers, to the connection's end, none), 1xx answers,
 * HTTP/1.0 keep-alive as XSP sends it, answers cut into single bytes, connections kept
 * and closed, a kept connection the server closed while idle, a slow reader holding the
 * server back, and the errors.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, test } from 'node:test';
import { Http1Error, Http1Pool } from './http1.ts';

const servers: net.Server[] = [];
after(() => {
  for (const server of servers) server.close();
});

/** A server that reads each request (head and Content-Length body) and answers with what `answer` returns. */
async function rawServer(
  answer: (
    request: string,
    nth: number,
    socket: net.Socket,
  ) => string | Buffer | Array<string | Buffer> | undefined,
): Promise<{ port: number; connections: () => number; requests: string[] }> {
  let connections = 0;
  const requests: string[] = [];
  const server = net.createServer((socket) => {
    connections++;
    let buffer = '';
    socket.on('data', async (chunk) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const request = buffer.slice(0, end + 4 + length);
        buffer = buffer.slice(end + 4 + length);
        requests.push(request);
        const reply = answer(request, requests.length, socket);
        if (reply === undefined) continue;
        for (const piece of Array.isArray(reply) ? reply : [reply]) {
          socket.write(piece);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections, requests };
}

function pool(port: number, maxSockets = 2, idleTimeoutMs = 2000): Http1Pool {
  return new Http1Pool({ host: '127.0.0.1', port, tls: false, maxSockets, idleTimeoutMs });
}

const GET = { method: 'GET', path: '/x', headers: { host: 'h' }, body: undefined };

async function text(
  p: Http1Pool,
  request = GET,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const answer = await p.request(request);
  const parts: Buffer[] = [];
  await answer.body.read((piece) => {
    parts.push(Buffer.from(piece));
  });
  return {
    status: answer.status,
    headers: { ...answer.headers },
    body: Buffer.concat(parts).toString('latin1'),
  };
}

test('every framing, and the head', async () => {
  const answers = [
    'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\nx-a: 2\r\n\r\nhello',
    'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0A\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n',
    'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 2\r\n\r\nno',
    'HTTP/1.1 204 No Content\r\n\r\n',
    'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nxsp',
  ];
  const server = await rawServer((_r, nth) => answers[nth - 1]);
  const p = pool(server.port, 1);
  assert.deepEqual(await text(p), {
    status: 200,
    headers: { 'content-length': '5', 'x-a': '1, 2' },
    body: 'hello',
  });
  assert.equal((await text(p)).body, 'abc0123456789');
  assert.deepEqual(await text(p), { status: 500, headers: { 'content-length': '2' }, body: 'no' });
  assert.equal((await text(p)).body, '');
  assert.equal((await text(p)).body, 'xsp');
  assert.equal(server.connections(), 1, 'one kept connection for all five');
  p.destroy(new Error('done'));
});

test('an answer in single bytes', async () => {
  const answer = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nwiki\r\n5\r\npedia\r\n0\r\n\r\n';
  const server = await rawServer(() => [...answer].map((c) => Buffer.from(c, 'latin1')));
  const p = pool(server.port);
  assert.equal((await text(p)).body, 'wikipedia');
  p.destroy(new Error('done'));
});

test('a body to the connection end; Connection: close and HTTP/1.0 close the connection', async () => {
  const answers = [
    'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\na',
    'HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nb',
  ];
  const server = await rawServer((_r, nth, socket) => {
    if (nth === 3) {
      socket.end('HTTP/1.1 200 OK\r\n\r\nuntil the end');
      return undefined;
    }
    return answers[nth - 1];
  });
  const p = pool(server.port, 1);
  assert.equal((await text(p)).body, 'a');
  assert.equal((await text(p)).body, 'b');
  assert.equal((await text(p)).body, 'until the end');
  assert.equal(server.connections(), 3);
  p.destroy(new Error('done'));
});

test('a kept connection the server closed while idle: the request goes out again on a new one', async () => {
  const server = await rawServer((_r, nth, socket) => {
    const reply = `HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n${nth}`;
    // Answers, then closes the kept connection as an idle server does.
    if (nth === 1) setTimeout(() => socket.destroy(), 20);
    return reply;
  });
  const p = pool(server.port, 1);
  assert.equal((await text(p)).body, '1');
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal((await text(p)).body, '2');
  p.destroy(new Error('done'));
});

test('a slow reader holds the sender back, and gets every byte in order', async () => {
  const piece = Buffer.alloc(64 * 1024, 'x');
  const pieces = 64;
  const server = await rawServer(() => [
    `HTTP/1.1 200 OK\r\nContent-Length: ${piece.length * pieces}\r\n\r\n`,
    ...Array.from({ length: pieces }, (_, i) => Buffer.alloc(piece.length, 65 + (i % 26))),
  ]);
  const p = pool(server.port);
  const answer = await p.request(GET);
  let bytes = 0;
  let last = 64;
  await answer.body.read(async (chunk) => {
    for (const b of chunk) assert.ok(b >= last || (last === 90 && b === 65) || b === last, 'in order');
    last = chunk[chunk.length - 1]!;
    bytes += chunk.length;
    await new Promise((resolve) => setTimeout(resolve, 1));
  });
  assert.equal(bytes, piece.length * pieces);
  p.destroy(new Error('done'));
});

test('errors: refused, cut off, a bad head, a bad chunk, silence', async () => {
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await assert.rejects(
    pool(port).request(GET),
    (e: unknown) => e instanceof Http1Error && e.code === 'ECONNREFUSED',
  );

  const cases: Array<[string, string]> = [
    ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort', 'ECONNRESET'],
    ['<html>not http</html>\r\n\r\n', 'EPROTO'],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', 'EPROTO'],
    ['HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\nx', 'EPROTO'],
  ];
  for (const [reply, code] of cases) {
    const server = await rawServer((_r, _n, socket) => {
      socket.end(reply);
      return undefined;
    });
    const p = pool(server.port);
    const failure = await text(p).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(
      failure instanceof Http1Error && failure.code === code,
      `${JSON.stringify(reply)}: ${String(failure)}`,
    );
  }

  const silent = await rawServer(() => undefined);
  await assert.rejects(
    pool(silent.port, 1, 100).request(GET),
    (e: unknown) => e instanceof Http1Error && e.code === 'ETIMEDOUT',
  );
});

test('at most maxSockets connections; requests wait their turn', async () => {
  const server = await rawServer(() => 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
  const p = pool(server.port, 3);
  const answers = await Promise.all(Array.from({ length: 20 }, () => text(p)));
  assert.ok(answers.every((a) => a.body === 'ok'));
  assert.ok(server.connections() <= 3, `${server.connections()} connections`);
  p.destroy(new Error('done'));
});
