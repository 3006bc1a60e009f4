/**
 * The JSON API's OpenAPI document: it passes a real linter (Redocly's, recommended-strict
 * rules) with no problem at all; it names exactly the routes the server has, with their
 * parameters and security; and every operation it describes, called as it says against a
 * running server, answers with a status it lists and a body its schema accepts — successes
 * and refusals alike.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { generateOpenApi, type Json, OPENAPI_PATH } from '../src/describe/openapi.ts';
import { API_PREFIX, JSON_ROUTES } from '../src/protocol/json/routes.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

type JsonObject = { [key: string]: Json };

const OPTIONS = { maxImageDimension: 4096, maxListItems: 16, publicUrl: undefined, httpMaxAge: 60 };
const DOC = generateOpenApi(OPTIONS);
/** Ids of the reference bundle, by path parameter. */
const SAMPLE_IDS: Readonly<Record<string, number>> = {
  artikelID: 100,
  bereichID: 1,
  cityAppBereichID: 10,
  anhangID: 500,
  bildID: 200,
};

function object(value: Json | undefined): JsonObject {
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), 'an object');
  return value;
}

async function lint(document: JsonObject) {
  const config = await createConfig({ extends: ['recommended-strict'] });
  return lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
}

/** Each operation of the document: path template, method, the operation object. */
function operations(document: JsonObject) {
  return Object.entries(object(document.paths)).flatMap(([path, item]) =>
    Object.entries(object(item)).map(([method, op]) => ({
      path,
      method: method.toUpperCase(),
      op: object(op),
    })),
  );
}

/** A validator for schemas of the document (their `$ref`s point into its components). */
function validator() {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: 'openapi.json', components: DOC.components });
  return (schema: Json, value: unknown): string | undefined => {
    const rebased = JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'),
    );
    const validate = ajv.compile(rebased);
    return validate(value) ? undefined : ajv.errorsText(validate.errors);
  };
}

test('the document passes the Redocly linter (recommended-strict) with no problem', async () => {
  const problems = await lint(DOC);
  assert.deepEqual(
    problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    [],
  );
});

test('the linter fails a broken document (it can catch what it is here for)', async () => {
  const broken = JSON.parse(JSON.stringify(DOC)) as JsonObject;
  const first = operations(broken)[0]!;
  first.op.responses = {
    '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/nothing' } } } },
  };
  const problems = await lint(broken);
  assert.ok(
    problems.some((p) => p.severity === 'error'),
    'errors found',
  );
});

test('the document names exactly the routes, with their parameters and security', () => {
  const ops = operations(DOC);
  assert.equal(ops.length, JSON_ROUTES.length);
  for (const route of JSON_ROUTES) {
    const found = ops.find((o) => o.path === API_PREFIX + route.path && o.method === route.method);
    assert.ok(found, `${route.method} ${route.path}`);
    assert.equal(found.op.operationId, route.operationId);
    const params = (found.op.parameters as JsonObject[]).filter((p) => p.in !== 'header');
    assert.deepEqual(
      params.map((p) => `${p.in}:${p.name}`),
      [...route.pathParams.map((f) => `path:${f.name}`), ...route.queryParams.map((f) => `query:${f.name}`)],
    );
    assert.deepEqual(found.op.security, route.token ? [{ bearerAuth: [] }] : []);
    const body = found.op.requestBody as JsonObject | undefined;
    const fields = body
      ? Object.keys(object(object(object(object(body.content)['application/json']).schema).properties))
      : [];
    assert.deepEqual(
      fields,
      route.bodyParams.map((f) => f.name),
    );
  }
  const ids = ops.map((o) => o.op.operationId);
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

test('every example (the demo content’s answers) passes its schema', () => {
  const check = validator();
  let seen = 0;
  for (const { path, method, op } of operations(DOC)) {
    for (const parameter of op.parameters as JsonObject[]) {
      if (parameter.example === undefined) continue;
      seen++;
      assert.equal(
        check(parameter.schema!, parameter.example),
        undefined,
        `${method} ${path} ${parameter.name}`,
      );
    }
    const ok = object(object(op.responses)['200']);
    const media = ok.content ? object(ok.content)['application/json'] : undefined;
    const example = media ? object(media).examples : undefined;
    if (!example) continue;
    seen++;
    const problem = check(object(media).schema!, object(object(example).demo).value!);
    assert.equal(problem, undefined, `${method} ${path}: ${problem}`);
  }
  assert.ok(seen >= JSON_ROUTES.length, `${seen} examples`);
});

describe('the document against a running server', () => {
  let fixture: Fixture;
  before(async () => {
    fixture = await startFixture();
  });
  after(() => fixture?.stop());

  test(`GET ${OPENAPI_PATH} serves the document`, async () => {
    const answer = await fetch(`${fixture.server.url}${OPENAPI_PATH}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/json');
    assert.deepEqual(await answer.json(), DOC);
    const post = await fetch(`${fixture.server.url}${OPENAPI_PATH}`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  });

  test('every operation, called as the document says, answers as its responses say', async () => {
    const check = validator();
    assert.ok(
      check({ $ref: '#/components/schemas/wsBereich' }, { name: 'x' }),
      'a record without its id is refused',
    );
    for (const { path, method, op } of operations(DOC)) {
      const params = op.parameters as JsonObject[];
      const needsToken = (op.security as Json[]).length > 0;
      const url = (ids: Readonly<Record<string, number>>) =>
        fixture.server.url + path.replace(/\{(\w+)\}/g, (_, name: string) => String(ids[name]));
      const body = op.requestBody as JsonObject | undefined;
      const example = body && object(object(body.content)['application/json']).example;
      const send = (ids: Readonly<Record<string, number>>, token: boolean) =>
        fetch(url(ids), {
          method,
          headers: {
            ...(token ? { authorization: `Bearer ${REFERENCE_TOKEN}` } : {}),
            ...(example ? { 'content-type': 'application/json' } : {}),
          },
          ...(example ? { body: JSON.stringify(example) } : {}),
        });
      assert.ok(
        params.every((p) => p.in !== 'path' || String(p.name) in SAMPLE_IDS),
        path,
      );
      const responses = object(op.responses);

      const ok = await send(SAMPLE_IDS, needsToken);
      const what = `${method} ${path}`;
      assert.equal(ok.status, 200, what);
      const success = object(responses['200']);
      const json = success.content && object(success.content)['application/json'];
      if (json) {
        const problem = check(object(json).schema, await ok.json());
        assert.equal(problem, undefined, `${what}: ${problem}`);
      } else await ok.arrayBuffer();

      if (needsToken) {
        const refused = await send(SAMPLE_IDS, false);
        assert.ok(responses['401'], `${what} lists 401`);
        assert.equal(refused.status, 401, what);
        assert.equal(
          check(
            object(object(object(responses['401']).content)['application/problem+json']).schema,
            await refused.json(),
          ),
          undefined,
        );
      }
      if (params.some((p) => p.in === 'path')) {
        const unknown = Object.fromEntries(Object.keys(SAMPLE_IDS).map((k) => [k, 999_999]));
        const missing = await send(unknown, needsToken);
        assert.equal(missing.status, 404, what);
        if (method !== 'HEAD') {
          const schema = object(object(object(responses['404']).content)['application/problem+json']).schema;
          assert.equal(check(schema, await missing.json()), undefined, what);
        } else await missing.arrayBuffer();
      }
    }
  });
});
