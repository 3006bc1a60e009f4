import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { PUBLIC_V6 } from '../contract/operations.ts';
import { baseUrl, createDescribeRoutes, type DescribeOptions } from './describe-routes.ts';

function request(headers: Record<string, string>): IncomingMessage {
  return { headers, socket: { localAddress: '127.0.0.1', localPort: 8080 } } as unknown as IncomingMessage;
}

const plain: DescribeOptions = {
  namespace: 'http://scoop.example.org/api',
  publicUrl: undefined,
  trustProxy: false,
  httpAuth: true,
  maxImageDimension: 4096,
  maxListItems: 16,
  httpMaxAge: 60,
};

test('SCOOP_PUBLIC_URL wins over everything the request says', () => {
  const options = { ...plain, publicUrl: 'https://api.example.org/base' };
  assert.equal(
    baseUrl(request({ host: 'evil.example', 'x-forwarded-host': 'x' }), options),
    'https://api.example.org/base',
  );
});

test('without it, the request scheme and Host are used', () => {
  assert.equal(baseUrl(request({ host: 'scoop.example.org:8080' }), plain), 'http://scoop.example.org:8080');
  assert.equal(baseUrl(request({ host: '[::1]:8080' }), plain), 'http://[::1]:8080');
});

test('X-Forwarded-Proto/-Host are honoured only when SCOOP_TRUST_PROXY is on', () => {
  const headers = {
    host: 'internal:8080',
    'x-forwarded-proto': 'https',
    'x-forwarded-host': 'www.example.org',
  };
  assert.equal(baseUrl(request(headers), plain), 'http://internal:8080');
  assert.equal(baseUrl(request(headers), { ...plain, trustProxy: true }), 'https://www.example.org');
  const chain = {
    ...headers,
    'x-forwarded-proto': 'https, http',
    'x-forwarded-host': 'a.example, b.example',
  };
  assert.equal(baseUrl(request(chain), { ...plain, trustProxy: true }), 'https://a.example');
});

test('a Host that is not host[:port] is never copied into a URL', () => {
  for (const host of ['evil"><x', 'a/b', 'a b', '', 'user@host']) {
    assert.equal(baseUrl(request({ host }), plain), 'http://127.0.0.1:8080', host);
  }
  assert.equal(
    baseUrl(request({ host: 'ok', 'x-forwarded-proto': 'javascript' }), { ...plain, trustProxy: true }),
    'http://ok',
  );
});

test('the WSDL addresses carry the base URL, escaped, for every port', () => {
  const routes = createDescribeRoutes(plain);
  const doc = routes.forEndpoint(request({ host: 'scoop.example.org' }), PUBLIC_V6, 'WSDL');
  const locations = [...doc.body.matchAll(/location="(http[^"]*)"/g)].map((m) => m[1]);
  assert.deepEqual(locations, Array(4).fill('http://scoop.example.org/scoop/api/v6/public.asmx'));
});

test('?wsdl in any letter case gives the WSDL; ?disco the DISCO', () => {
  const routes = createDescribeRoutes(plain);
  for (const query of ['wsdl', 'WSDL', 'WsDl', 'wSdL=']) {
    const doc = routes.forEndpoint(request({ host: 'h' }), PUBLIC_V6, query);
    assert.match(doc.body, /<wsdl:definitions /, query);
  }
  assert.match(routes.forEndpoint(request({ host: 'h' }), PUBLIC_V6, 'DiScO').body, /<discovery /);
});

test('?op= names an operation of this endpoint, or is refused', () => {
  const routes = createDescribeRoutes(plain);
  assert.match(routes.forEndpoint(request({ host: 'h' }), PUBLIC_V6, 'op=getBild').body, /<h1>getBild<\/h1>/);
  assert.throws(
    () => routes.forEndpoint(request({ host: 'h' }), PUBLIC_V6, 'op=getNewsletter'),
    /not offered/,
  );
});
