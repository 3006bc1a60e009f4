import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capturedRequest } from './replay-request.ts';

const TOKEN = 'abcdef01-2345-6789-abcd-ef0123456789';
const OLD = '99999999-9999-9999-9999-999999999999';

test('the SOAP header token is replaced, the bytes around it kept (ISO-8859-1 too)', () => {
  const envelope = `<?xml version="1.0" encoding="iso-8859-1"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><a:wsAuthHeader xmlns:a="urn:x"><a:token>${OLD}</a:token></a:wsAuthHeader></s:Header><s:Body><getArtikelDetails xmlns="urn:x"><artikelID>1</artikelID><note>Stra\xdfe</note></getArtikelDetails></s:Body></s:Envelope>`;
  const body = Buffer.from(envelope, 'latin1');
  const request = capturedRequest(
    'POST',
    '/scoop/api/v6/scoop.asmx',
    {
      'content-type': 'text/xml; charset=iso-8859-1',
      soapaction: '"urn:x/getArtikelDetails"',
      cookie: 'x=1',
    },
    body,
  )!;
  assert.equal(request.binding, 'soap11');
  assert.equal(request.operation, 'getArtikelDetails');
  const sent = request.prepare(TOKEN);
  assert.deepEqual(sent.body, Buffer.from(envelope.replace(OLD, TOKEN), 'latin1'));
  assert.equal(sent.headers.cookie, undefined, 'only the headers a call needs are kept');
  assert.deepEqual(request.prepare(undefined).body, body);
});

test('a Bearer header and a token form field are replaced; a request without a token gets none', () => {
  const get = capturedRequest(
    'GET',
    '/scoop/api/v7/scoop.asmx/getNewsletter',
    { authorization: `Bearer ${OLD}` },
    Buffer.alloc(0),
  )!;
  assert.equal(get.binding, 'httpget');
  assert.equal(get.prepare(TOKEN).headers.authorization, `Bearer ${TOKEN}`);
  const form = capturedRequest(
    'POST',
    '/scoop/api/v6/scoop.asmx/getArtikelDetails',
    { 'content-type': 'application/x-www-form-urlencoded' },
    Buffer.from(`artikelID=1&Token=${OLD}&x=token%3D1`),
  )!;
  assert.equal(form.binding, 'httppost');
  assert.equal(form.prepare(TOKEN).body.toString(), `artikelID=1&Token=${TOKEN}&x=token%3D1`);
  const bare = capturedRequest(
    'GET',
    '/scoop/api/v6/public.asmx/getBereich?bereichID=1',
    {},
    Buffer.alloc(0),
  )!;
  assert.deepEqual(bare.prepare(TOKEN).headers, {});
});

test('the binding and operation are found as the service finds them', () => {
  const soap12 = capturedRequest(
    'POST',
    '/scoop/api/v6/public.asmx',
    { 'content-type': 'application/soap+xml; charset=utf-8; action="http://ns/getBereich"' },
    Buffer.from('<e/>'),
  )!;
  assert.deepEqual([soap12.binding, soap12.operation], ['soap12', 'getBereich']);
  const byBody = capturedRequest(
    'POST',
    '/scoop/api/v6/public.asmx',
    { 'content-type': 'text/xml' },
    Buffer.from(
      '<soap:Envelope xmlns:soap="x"><soap:Body>\n  <getAnhang xmlns="ns"/></soap:Body></soap:Envelope>',
    ),
  )!;
  assert.equal(byBody.operation, 'getAnhang');
  assert.equal(capturedRequest('GET', '/scoop/api/v6/public.asmx', {}, Buffer.alloc(0)), undefined);
  assert.equal(capturedRequest('GET', '/index.html', {}, Buffer.alloc(0)), undefined);
  assert.equal(
    capturedRequest('DELETE', '/scoop/api/v6/public.asmx/getBereich', {}, Buffer.alloc(0)),
    undefined,
  );
  assert.equal(capturedRequest('GET', '/scoop/api/v6/public.asmx/nope', {}, Buffer.alloc(0))!.operation, '-');
});
