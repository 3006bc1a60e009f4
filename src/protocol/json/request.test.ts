import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertScoopError } from '../../../test/support/assertions.ts';
import { parseMediaType } from '../content-type.ts';
import { decodeJsonRequest } from './request.ts';

const search = (body: string) =>
  decodeJsonRequest({
    method: 'POST',
    path: '/api/v1/abonnements/suche',
    query: '',
    headers: { authorization: 'Bearer t' },
    mediaType: parseMediaType('application/json'),
    body: Buffer.from(body, 'utf8'),
  });

test('the search body: one string field, escapes decoded, the token from Authorization', () => {
  const decoded = search('{ "email" : "a\\u0040example.org" }');
  assert.equal(decoded.route.operationId, 'getAbonnierteNewsletter');
  assert.deepEqual([...decoded.parameters], [['email', ['a@example.org']]]);
  assert.equal(decoded.token, 't');
});

test('a top-level field twice is refused; the same name deeper down is not a repeat', () => {
  assertScoopError(() => search('{"email":"a","email":"b"}'), 'DUPLICATE_PARAMETER');
  assertScoopError(() => search('{"email":"a","\\u0065mail":"b"}'), 'DUPLICATE_PARAMETER');
  // Names inside nested values, and strings holding quotes or braces, are not top-level names.
  assertScoopError(() => search('{"x":{"email":"a","email":"b"},"email":"c"}'), 'UNKNOWN_FIELD');
  assertScoopError(() => search('{"email":"a\\"}, \\"email\\":{","y":["email","email"]}'), 'UNKNOWN_FIELD');
});

test('path parameters are percent-decoded; defaults fill query parameters left out', () => {
  const bild = decodeJsonRequest({
    method: 'GET',
    path: '/api/v1/bilder/%32%30%30',
    query: 'resizeModes=crop&resizeModes=fit&unknown=1',
    headers: {},
    mediaType: undefined,
    body: undefined,
  });
  assert.deepEqual(Object.fromEntries(bild.parameters), {
    bildID: ['200'],
    resizeModes: ['crop', 'fit'],
    width: ['0'],
    height: ['0'],
  });
  assert.equal(bild.token, undefined);
});
