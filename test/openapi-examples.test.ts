/**
 * The OpenAPI document's examples are the JSON API's real answers for the demo content
 * (examples/demo-bundle): src/describe/openapi-examples.json, checked in and kept current
 * here — `OPENAPI_EXAMPLES_UPDATE=1` (`npm run api:examples`) rewrites it from a server
 * holding the demo content. Every example also passes its response schema
 * (test/openapi.test.ts checks the document's schemas against live answers).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Arguments } from '../src/contract/operations.ts';
import { EXAMPLES_FILE, type Json, type OperationExample } from '../src/describe/openapi.ts';
import { encodeJsonRequest } from '../src/protocol/json/client-request.ts';
import { JSON_ROUTES } from '../src/protocol/json/routes.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

const UPDATE = process.env.OPENAPI_EXAMPLES_UPDATE === '1';
/** Arguments reaching records of the demo content, by parameter name. */
const DEMO_ARGUMENTS: Readonly<Record<string, Arguments[string]>> = {
  artikelID: 100,
  bereichID: 1,
  cityAppBereichID: 10,
  anhangID: 501,
  bildID: 200,
  email: 'erika.beispiel@example.org',
};

let fixture: Fixture;
before(async () => {
  fixture = await startFixture({}, [path.resolve('examples/demo-bundle')]);
});
after(() => fixture?.stop());

async function demoExamples(): Promise<Record<string, OperationExample>> {
  const out: Record<string, OperationExample> = {};
  for (const route of JSON_ROUTES) {
    const names = [...route.pathParams, ...route.bodyParams].map((f) => f.name);
    const args: Record<string, Arguments[string]> = Object.fromEntries(
      names.map((n) => [n, DEMO_ARGUMENTS[n]!]),
    );
    const example: OperationExample = { parameters: args };
    if (route.answer === 'json') {
      const request = encodeJsonRequest(route.operation, args, REFERENCE_TOKEN);
      const answer = await fetch(`${fixture.server.url}${request.path}`, {
        method: request.method,
        headers: request.headers,
        ...(request.method === 'POST' ? { body: request.body } : {}),
      });
      assert.equal(answer.status, 200, route.operationId);
      out[route.operationId] = { ...example, response: (await answer.json()) as Json };
    } else out[route.operationId] = example;
  }
  return out;
}

test(`${EXAMPLES_FILE} holds the JSON API's answers for the demo content`, async () => {
  const fresh = `${JSON.stringify(await demoExamples(), null, 2)}\n`;
  if (UPDATE) writeFileSync(EXAMPLES_FILE, fresh);
  assert.equal(readFileSync(EXAMPLES_FILE, 'utf8'), fresh, 'run `npm run api:examples` and review the diff');
});
