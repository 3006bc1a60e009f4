/**
 * The answer cache's budget bounds its memory, not only the bytes of its answers: a cache
 * filled past its budget with small answers (where what an entry holds besides its bytes
 * weighs most) holds at most its budget (test/support/held-memory.ts measures it).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heldBy, moduleUrl } from '../../test/support/held-memory.ts';

const BUDGET = 4 * 1024 * 1024;

/** Fills a cache of BUDGET with 10,000 answers of `answerBytes` to SOAP or GET requests. */
function fill(post: boolean, answerBytes: number): string {
  return `
import { ResponseCache, cachedHead, requestKey } from ${moduleUrl('./response-cache.ts', import.meta.url)};
import { OPERATIONS } from ${moduleUrl('../contract/operations.ts', import.meta.url)};
const operation = OPERATIONS.find((op) => op.name === 'getBereich');
kept = new ResponseCache(${BUDGET});
for (let i = 0; i < 10000; i++) {
  const request = Buffer.from('<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><getBereich xmlns="http://scoop.example.org/api"><bereichID>' + i + '</bereichID></getBereich></soap:Body></soap:Envelope>');
  const key = ${post}
    ? requestKey('POST', '/scoop/api/v6/public.asmx', { contentType: 'text/xml; charset=utf-8', soapAction: '"http://scoop.example.org/api/getBereich"' }, request)
    : requestKey('GET', '/scoop/api/v6/public.asmx/getBereich?bereichID=' + i, {}, undefined);
  const headers = { 'content-type': 'text/xml; charset=utf-8', 'cache-control': 'private, max-age=0', 'x-content-type-options': 'nosniff' };
  if (!${post}) headers.etag = '"' + String(i).padStart(32, 'x') + '"';
  const body = Buffer.alloc(${answerBytes}, 97);
  const call = { binding: ${post} ? 'soap11' : 'httpget', operation, parameters: new Map([['bereichID', [String(i)]]]), token: undefined, authenticate: false };
  kept.set(key, { version: 1, expiresAt: Infinity, headers, body, head: cachedHead(headers, body.length), call, conditional: !${post} });
}
`;
}

for (const [name, post, answerBytes] of [
  ['SOAP answers of 700 bytes', true, 700],
  ['HTTP GET answers of 700 bytes', false, 700],
  ['SOAP answers of 8 KB', true, 8000],
] as const) {
  test(`a full cache of ${name} holds at most its budget`, () => {
    const { held, reported: entries } = heldBy(fill(post, answerBytes), 'kept.size');
    assert.ok(
      typeof entries === 'number' && entries > 100 && entries < 10_000,
      `full and evicting: ${entries} entries`,
    );
    assert.ok(held <= BUDGET, `holds ${held} bytes in ${entries} entries`);
    assert.ok(held >= BUDGET * 0.6, `counts what it holds: ${held} bytes in ${entries} entries`);
  });
}
