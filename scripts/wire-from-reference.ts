/**
 * Builds wire cases (test/wire/<operation>__<case>/) from the reference captures in
 * ../shared/reference: every request is taken verbatim; where the original answered
 * with a result (200, XML), that answer becomes the expected response and the case
 * records its SOURCE, so it is never regenerated from our own output. For the other
 * cases the expected response is ours, written by `npm run wire:update` and reviewed.
 * HTTP GET/POST requests to scoop.asmx get the reference token as a Bearer header,
 * because scoop requires one there (the original did not; docs/errors.md).
 *
 *   node --import tsx scripts/wire-from-reference.ts [reference-dir]
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const REFERENCE = path.resolve(process.argv[2] ?? '../shared/reference');
const WIRE = path.resolve('test/wire');
const TOKEN = '11111111-1111-1111-1111-111111111111';
const REQUEST_MARK = Buffer.from('===== REQUEST (verbatim bytes sent) =====\n');
const RESPONSE_MARK = Buffer.from('===== RESPONSE (verbatim bytes received) =====\n');

/** Cases where scoop answers differently from the original on purpose (docs/errors.md). */
const DIFFERS = new Set([
  'json-body',
  'no-token-scoop-op',
  'get-endpoint-without-op',
  'get-soap-envelope-as-get',
]);

/**
 * getBild cases that ask for a resize: the original returned the image unchanged, scoop
 * resizes, so these answers are ours (docs/images.md, "Differences from the original").
 */
const RESIZED = new Set(['getBild__ok', 'getBild__resizeModes-comma-list']);

function split(file: Buffer): { request: Buffer; response: Buffer } {
  const a = file.indexOf(REQUEST_MARK) + REQUEST_MARK.length;
  const b = file.indexOf(RESPONSE_MARK);
  // The line break before the RESPONSE marker belongs to the capture file, not the request.
  return { request: trimRequest(file.subarray(a, b - 1)), response: file.subarray(b + RESPONSE_MARK.length) };
}

function trimRequest(raw: Buffer): Buffer {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end).toString('latin1');
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  return raw.subarray(0, end + 4 + (length ? Number(length[1]) : 0));
}

function operationOf(request: Buffer): string {
  const text = request.toString('utf8');
  const line = text.slice(0, text.indexOf('\r\n'));
  const httpOp = /\.asmx\/([A-Za-z]+)/.exec(line);
  if (httpOp) return httpOp[1]!;
  const body = /<(?:\w+:)?Body>\s*<(?:\w+:)?([A-Za-z]+)/.exec(text);
  return body ? body[1]! : 'none';
}

function withToken(request: Buffer): Buffer {
  const text = request.toString('latin1');
  if (!/^(GET|POST) \/scoop\/api\/v\d\/scoop\.asmx\//.test(text)) return request;
  const end = text.indexOf('\r\n');
  return Buffer.from(`${text.slice(0, end)}\r\nAuthorization: Bearer ${TOKEN}${text.slice(end)}`, 'latin1');
}

function expected(response: Buffer): Buffer | undefined {
  const end = response.indexOf('\r\n\r\n');
  const head = response.subarray(0, end).toString('latin1');
  const status = /^HTTP\/1\.[01] (\d+)/.exec(head)?.[1];
  const type = /\r\ncontent-type: ([^\r]+)/i.exec(head)?.[1];
  const cache = /\r\ncache-control: ([^\r]+)/i.exec(head)?.[1];
  if (status !== '200' || !type || !/xml/.test(type)) return undefined;
  const body = response.subarray(end + 4);
  return Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ncache-control: ${cache}\r\n\r\n`, 'latin1'),
    body,
  ]);
}

function write(caseName: string, request: Buffer, response: Buffer | undefined, source: string): void {
  const folder = path.join(WIRE, caseName);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'request.http'), request);
  if (response) {
    writeFileSync(path.join(folder, 'response.http'), response);
    writeFileSync(path.join(folder, 'SOURCE'), `${source}\n`);
  }
}

for (const dir of ['exchanges', 'errors']) {
  for (const name of readdirSync(path.join(REFERENCE, dir)).filter((n) => n.endsWith('.txt'))) {
    const parts = name.slice(0, -4).split('.');
    const binding = parts.pop()!;
    const { request, response } = split(readFileSync(path.join(REFERENCE, dir, name)));
    const op = operationOf(request);
    const variant = dir === 'exchanges' ? parts.slice(1).join('.') || 'ok' : parts.join('.');
    const caseName = `${op}__${variant}-${binding}`;
    if (existsSync(path.join(WIRE, caseName, 'request.http')) && dir === 'errors') continue;
    const ours = DIFFERS.has(variant) || RESIZED.has(`${op}__${variant}`);
    const keep = ours ? undefined : expected(response);
    write(caseName, withToken(request), keep, `reference/${dir}/${name}`);
  }
}
