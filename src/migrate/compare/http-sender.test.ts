import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { HttpSender, parseBaseUrl } from './http-sender.ts';

let server: Server;
let base: URL;
const big = Buffer.alloc(300_000, 'x');

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (req.url === '/app/silent') return; // never answers
    if (req.url === '/app/cut') {
      res.writeHead(200, { 'content-type': 'text/xml', 'content-length': '1000' });
      res.write('<r>');
      setTimeout(() => res.destroy(), 20);
      return;
    }
    if (req.url === '/app/big') {
      res.writeHead(200, { 'content-type': 'text/xml' });
      res.end(big);
      return;
    }
    res.writeHead(404, 'Nope', { 'content-type': 'text/plain' });
    res.end(`${req.method} ${req.url} ${req.headers['content-length'] ?? '-'}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/app/`);
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const options = { timeoutMs: 500, keepBytes: 100_000, maxSockets: 2 };
const send = (path: string, method = 'GET') =>
  new HttpSender(base, options).send({ method, path, headers: {}, body: Buffer.from('abc') });

test("the path goes after the base URL's own; the status line and body are kept", async () => {
  const answer = await send('/x?y=1', 'POST');
  assert.equal(answer.kind, 'answer');
  if (answer.kind !== 'answer') return;
  assert.deepEqual([answer.status, answer.reason, answer.contentType], [404, 'Nope', 'text/plain']);
  assert.equal(answer.body!.toString(), 'POST /app/x?y=1 3');
});

test('a larger answer is kept as its length and SHA-256', async () => {
  const answer = await send('/big');
  assert.ok(answer.kind === 'answer' && answer.body === undefined);
  assert.equal(answer.size, big.length);
  assert.equal(answer.sha256, createHash('sha256').update(big).digest('hex'));
});

test('no answer in time, a cut answer and a refused connection are failures with a reason', async () => {
  assert.deepEqual(await send('/silent'), { kind: 'failed', reason: 'no complete answer within 0.5 s' });
  const cut = await send('/cut');
  assert.equal(cut.kind, 'failed');
  const refused = await new HttpSender(new URL('http://127.0.0.1:9'), options).send({
    method: 'GET',
    path: '/',
    headers: {},
    body: Buffer.alloc(0),
  });
  assert.deepEqual(refused, { kind: 'failed', reason: 'connection refused (ECONNREFUSED)' });
});

test('base URLs: http(s) with a host, nothing a request would misread', () => {
  assert.ok(parseBaseUrl('https://cms.example.org/services'));
  for (const bad of ['cms.example.org', 'ftp://x', 'http://u:p@x', 'http://x/?a=1', 'http://x/#f'])
    assert.equal(parseBaseUrl(bad), undefined, bad);
});
