/**
 * protocol/client-request.ts against a running scoop: every operation on every binding,
 * encoded from the contract, is answered with a 200 and the operation's result; the same
 * calls without the token are refused where a token is needed, so the token really went
 * where each binding carries it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Arguments, OPERATIONS, type Operation } from '../src/contract/operations.ts';
import type { BindingName } from '../src/protocol/binding.ts';
import { type ClientRequest, encodeRequest, soapAction } from '../src/protocol/client-request.ts';
import { canonicalize } from '../src/xml/c14n.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

const NAMESPACE = 'http://scoop.example.org/api';
const BINDINGS: readonly BindingName[] = ['soap11', 'soap12', 'httpget', 'httppost'];

/** Ids and values the reference bundle holds (test/fixtures/reference-bundle). */
const ARGS: Readonly<Record<string, Arguments>> = {
  checkAnhangVorhanden: { anhangID: 500 },
  getArtikelDetails: { artikelID: 101 },
  getAbonnierteNewsletter: { email: 'anna@example.org' },
  getNewsletter: {},
  getCityAppBereich: { cityAppBereichID: 10 },
  getBild: { bildID: 200, width: 100, height: 80, resizeModes: ['crop', 'background'] },
  getAnhang: { anhangID: 500 },
  getBereich: { bereichID: 1 },
};

async function send(fixture: Fixture, request: ClientRequest): Promise<{ status: number; body: string }> {
  const response = await fetch(`${fixture.server.url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.method === 'POST' ? { body: request.body } : {}),
  });
  return { status: response.status, body: await response.text() };
}

describe('encodeRequest', () => {
  let fixture: Fixture;
  before(async () => {
    fixture = await startFixture();
  });
  after(() => fixture.stop());

  for (const operation of OPERATIONS) {
    for (const binding of BINDINGS) {
      test(`${operation.name} over ${binding} is answered`, async () => {
        const args = ARGS[operation.name]!;
        const answer = await send(
          fixture,
          encodeRequest(binding, operation, args, { namespace: NAMESPACE, token: REFERENCE_TOKEN }),
        );
        assert.equal(answer.status, 200, answer.body);
        const root = binding.startsWith('soap') ? `<${operation.name}Response` : `<${rootOf(operation)}`;
        assert.ok(answer.body.includes(root), answer.body.slice(0, 300));
        if (operation.endpoint.requiresToken) {
          const without = await send(
            fixture,
            encodeRequest(binding, operation, args, { namespace: NAMESPACE }),
          );
          assert.notEqual(
            without.status,
            200,
            `${operation.name} over ${binding} was answered without a token`,
          );
        }
      });
    }
  }

  test('the SOAP bindings answer the same content', async () => {
    for (const operation of OPERATIONS) {
      const [a, b] = await Promise.all(
        (['soap11', 'soap12'] as const).map((binding) =>
          send(
            fixture,
            encodeRequest(binding, operation, ARGS[operation.name]!, {
              namespace: NAMESPACE,
              token: REFERENCE_TOKEN,
            }),
          ),
        ),
      );
      const body = (xml: string) => canonicalize(xml).replace(/^.*?<soap:Body>|<\/soap:Body>.*$/gs, '');
      assert.equal(body(a!.body), body(b!.body), operation.name);
    }
  });
});

function rootOf(operation: Operation): string {
  return operation.result.name;
}

describe('encodeRequest, the bytes', () => {
  const getBereich = OPERATIONS.find((op) => op.name === 'getBereich')!;
  const subscriptions = OPERATIONS.find((op) => op.name === 'getAbonnierteNewsletter')!;
  const getBild = OPERATIONS.find((op) => op.name === 'getBild')!;

  test('SOAP 1.1 carries the action quoted in SOAPAction and no header for a public operation', () => {
    const request = encodeRequest(
      'soap11',
      getBereich,
      { bereichID: 7 },
      { namespace: NAMESPACE, token: 'x' },
    );
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/scoop/api/v6/public.asmx');
    assert.equal(request.headers.soapaction, `"${NAMESPACE}/getBereich"`);
    assert.ok(!request.body.includes('wsAuthHeader'));
    assert.ok(
      request.body.includes(`<getBereich xmlns="${NAMESPACE}"><bereichID>7</bereichID></getBereich>`),
    );
  });

  test('SOAP 1.2 names the action in the media type', () => {
    const request = encodeRequest('soap12', getBereich, { bereichID: 7 }, { namespace: `${NAMESPACE}/` });
    assert.equal(
      request.headers['content-type'],
      `application/soap+xml; charset=utf-8; action="${NAMESPACE}/getBereich"`,
    );
    assert.equal(soapAction(`${NAMESPACE}/`, 'getBereich'), `${NAMESPACE}/getBereich`);
  });

  test('text is escaped in XML and in forms, and the token is a header, never in the URL', () => {
    const email = 'a&b<c>"d"+e@example.org';
    const soap = encodeRequest(
      'soap11',
      subscriptions,
      { email },
      { namespace: NAMESPACE, token: REFERENCE_TOKEN },
    );
    assert.ok(soap.body.includes('<email>a&amp;b&lt;c&gt;"d"+e@example.org</email>'));
    assert.ok(soap.body.includes(`<token>${REFERENCE_TOKEN}</token>`));
    const get = encodeRequest(
      'httpget',
      subscriptions,
      { email },
      { namespace: NAMESPACE, token: REFERENCE_TOKEN },
    );
    assert.equal(new URL(get.path, 'http://x').searchParams.get('email'), email);
    assert.ok(!get.path.includes(REFERENCE_TOKEN));
    assert.equal(get.headers.authorization, `Bearer ${REFERENCE_TOKEN}`);
    const post = encodeRequest(
      'httppost',
      subscriptions,
      { email },
      { namespace: NAMESPACE, token: REFERENCE_TOKEN },
    );
    assert.equal(new URLSearchParams(post.body).get('email'), email);
    assert.equal(post.headers['content-type'], 'application/x-www-form-urlencoded');
  });

  test('a list is an element per item in SOAP and a repeated parameter over HTTP', () => {
    const args: Arguments = { bildID: 1, width: 0, height: 0, resizeModes: ['crop', 'fit'] };
    const soap = encodeRequest('soap12', getBild, args, { namespace: NAMESPACE });
    assert.ok(
      soap.body.includes(
        '<resizeModes><resizeMode>crop</resizeMode><resizeMode>fit</resizeMode></resizeModes>',
      ),
    );
    const get = encodeRequest('httpget', getBild, args, { namespace: NAMESPACE });
    assert.equal(
      get.path,
      '/scoop/api/v6/public.asmx/getBild?bildID=1&width=0&height=0&resizeModes=crop&resizeModes=fit',
    );
    const empty = encodeRequest('httpget', getBild, { ...args, resizeModes: [] }, { namespace: NAMESPACE });
    assert.ok(!empty.path.includes('resizeModes'));
  });
});
