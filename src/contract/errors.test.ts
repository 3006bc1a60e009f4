import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERRORS } from './errors.ts';

/** The catalogue table of docs/errors.md: code → HTTP status. */
function documented(): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of readFileSync('docs/errors.md', 'utf8').split('\n')) {
    const m = /^\| `([A-Z_]+)` \| (\d{3})/.exec(line);
    if (m) rows.set(m[1]!, Number(m[2]));
  }
  return rows;
}

test('docs/errors.md lists every catalogue code with its status, and nothing else', () => {
  const docs = documented();
  for (const [code, spec] of Object.entries(ERRORS)) {
    assert.equal(docs.get(code), spec.status, `docs/errors.md row for ${code}`);
  }
  assert.deepEqual([...docs.keys()].sort(), Object.keys(ERRORS).sort());
});

test('client errors are 4xx on HTTP, except the SOAP-only fault kinds', () => {
  const soapOnly = new Set(['MUST_UNDERSTAND', 'NOT_SOAP', 'SOAP_VERSION_MISMATCH']);
  for (const [code, spec] of Object.entries(ERRORS)) {
    if (spec.side === 'client' && !soapOnly.has(code))
      assert.ok(spec.status >= 400 && spec.status < 500, code);
    // A rate limit is the server's policy, not a malformed request: a Server fault, HTTP 429.
    if (spec.side === 'server') assert.ok(spec.status >= 500 || code === 'RATE_LIMITED', code);
  }
});
