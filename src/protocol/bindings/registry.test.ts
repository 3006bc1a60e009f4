import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENDPOINTS } from '../../contract/operations.ts';
import type { Target } from '../binding.ts';
import { parseMediaType } from '../content-type.ts';
import { BINDINGS, bindingNamed } from './registry.ts';

const endpoint = ENDPOINTS[0]!;
const TARGETS: Array<{ path: string; target: Target }> = [
  { path: endpoint.path, target: { kind: 'endpoint', endpoint } },
  {
    path: `${endpoint.path}/getBereich`,
    target: { kind: 'operation', endpoint, operationName: 'getBereich' },
  },
  { path: '/elsewhere', target: { kind: 'none' } },
  { path: '/api/v1/bereiche/1', target: { kind: 'none' } },
  { path: '/api/v1', target: { kind: 'none' } },
];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'];
const MEDIA_TYPES = [
  undefined,
  'text/xml',
  'application/soap+xml',
  'application/x-www-form-urlencoded',
  'application/json',
  'text/plain',
];

test('no request is claimed by two bindings (the first claim would hide the other)', () => {
  for (const { path, target } of TARGETS) {
    for (const method of METHODS) {
      for (const type of MEDIA_TYPES) {
        const request = { method, path, target, mediaType: parseMediaType(type) };
        const claimers = BINDINGS.filter((b) => b.claims(request)).map((b) => b.name);
        assert.ok(claimers.length <= 1, `${method} ${path} ${type}: claimed by ${claimers.join(', ')}`);
      }
    }
  }
});

test('the JSON API takes every request under /api/v1, and nothing else', () => {
  for (const { path, target } of TARGETS) {
    for (const method of METHODS) {
      const claimer = BINDINGS.find((b) => b.claims({ method, path, target, mediaType: undefined }));
      assert.equal(claimer?.name === 'json', path.startsWith('/api/v1'), `${method} ${path}`);
    }
  }
  assert.equal(
    BINDINGS.find((b) => b.name === 'json')!.claims({
      method: 'GET',
      path: '/api/v10',
      target: { kind: 'none' },
      mediaType: undefined,
    }),
    false,
  );
});

test('each binding is found by its name, and names are unique', () => {
  const names = BINDINGS.map((b) => b.name);
  assert.equal(new Set(names).size, names.length);
  for (const binding of BINDINGS) assert.equal(bindingNamed(binding.name), binding);
});
