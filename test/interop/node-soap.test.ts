/**
 * Interop with the npm `soap` client (node-soap): for every endpoint it builds a client
 * from our `?wsdl`, calls every operation over SOAP 1.1 and over SOAP 1.2, and checks the
 * answers against the demo content (examples/demo-bundle/README.md). A wrong token must
 * reach the client as a SOAP fault.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import * as soap from 'soap';
import { ENDPOINTS, type Endpoint, operationsAt } from '../../src/contract/operations.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from '../support/fixture-server.ts';

const NS = 'http://scoop.example.org/api';
const WRONG_TOKEN = '22222222-2222-2222-2222-222222222222';
const FILES = path.resolve('examples/demo-bundle/files');
/** Only our server is ever asked, whatever proxy the environment names. */
const NO_PROXY = { proxy: false } as const;

type SoapVersion = '1.1' | '1.2';
const VERSIONS: readonly SoapVersion[] = ['1.1', '1.2'];
const MEDIA_TYPE: Record<SoapVersion, string> = {
  '1.1': 'text/xml; charset=utf-8',
  '1.2': 'application/soap+xml; charset=utf-8',
};

function base64Of(file: string): string {
  return readFileSync(path.join(FILES, file)).toString('base64');
}

/** The value at a path of keys, failing clearly when the path does not exist. */
function at(value: unknown, ...keys: Array<string | number>): unknown {
  let current = value;
  for (const [i, key] of keys.entries()) {
    assert.ok(
      current !== null && typeof current === 'object',
      `${keys.slice(0, i).join('.') || 'result'} is ${String(current)}, so it has no ${key}`,
    );
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

function list(value: unknown, ...keys: Array<string | number>): unknown[] {
  const found = at(value, ...keys);
  assert.ok(Array.isArray(found), `${keys.join('.')} is a list`);
  return found;
}

interface Call {
  readonly op: string;
  readonly args: Record<string, unknown>;
  check(result: unknown, rawRequest: string): void;
}

const CALLS: ReadonlyMap<string, readonly Call[]> = new Map([
  [
    '/scoop/api/v5/scoop.asmx',
    [
      {
        op: 'checkAnhangVorhanden',
        args: { anhangID: 500 },
        check: (r) => assert.deepEqual(r, { checkAnhangVorhandenResult: { anhangVorhanden: true } }),
      },
      {
        op: 'checkAnhangVorhanden',
        args: { anhangID: 999 },
        check: (r) => assert.deepEqual(r, { checkAnhangVorhandenResult: { anhangVorhanden: false } }),
      },
    ],
  ],
  [
    '/scoop/api/v6/scoop.asmx',
    [
      {
        op: 'getArtikelDetails',
        args: { artikelID: 100 },
        check(r) {
          const details = at(r, 'getArtikelDetailsResult', 'artikelDetails');
          const text = at(details, 'text');
          assert.ok(typeof text === 'string' && text.startsWith('<h2>Neue Öffnungszeiten im Bürgeramt</h2>'));
          assert.ok(text.includes('termine?dienst=ausweis&amp;standort=mitte'), 'HTML text kept as written');
          assert.deepEqual(list(details, 'bereiche', 'wsBereich'), [
            { name: 'Bürgerservice', bereichID: 2 },
            { name: 'Rathaus & Politik', bereichID: 1 },
          ]);
          assert.equal(at(details, 'cityAppBereiche') ?? null, null, 'no city-app areas');
          const [pdf, txt] = list(details, 'anhaenge', 'wsAnhang');
          assert.deepEqual(
            list(details, 'anhaenge', 'wsAnhang').map((a) => at(a, 'anhangID')),
            [500, 501],
          );
          assert.deepEqual(pdf, {
            anhangID: 500,
            filename: 'oeffnungszeiten-buergeramt.pdf',
            name: 'Öffnungszeiten der Bürgerämter',
            beschreibung: 'Bürgeramt Mitte & Bürgeramt Nord, gültig ab 1. Februar 2026',
            size: 4782,
            mimetype: 'application/pdf',
            data: base64Of('anhaenge/oeffnungszeiten-buergeramt.pdf'),
            sort: 1,
          });
          assert.equal(
            at(txt, 'beschreibung'),
            'Unterlagen & Gebühren (ermäßigt für Antragsteller < 24 Jahre)',
          );
          assert.equal(at(txt, 'data'), base64Of('anhaenge/checkliste-personalausweis.txt'));
          assert.deepEqual(list(details, 'links', 'wsLink'), [
            {
              titel: 'Online-Terminvergabe',
              url: 'https://www.beispielstadt.example/termine?dienst=ausweis&standort=mitte',
              art: 'extern',
              sort: 1,
            },
            { titel: 'Gebühren im Überblick', url: '/buergerservice/gebuehren', art: 'intern', sort: 2 },
          ]);
          const [personal, collective] = list(details, 'kontakte', 'wsKontakt');
          assert.deepEqual(at(personal, 'einrichtung'), { name: 'Bürgeramt Mitte', einrichtungID: 7 });
          assert.equal(at(personal, 'name'), 'Sabine Größler');
          assert.equal(at(collective, 'einrichtung') ?? null, null, 'xsi:nil einrichtung');
          assert.equal(at(collective, 'position'), '', 'empty position is an empty string, not absent');
          assert.equal(at(collective, 'fax'), undefined, 'no fax');
        },
      },
      {
        op: 'getAbonnierteNewsletter',
        args: { email: 'Jörg.Müller@Example.org' },
        check: (r) => assert.deepEqual(r, { getAbonnierteNewsletterResult: { newsletter: { int: [1, 2] } } }),
      },
    ],
  ],
  [
    '/scoop/api/v7/scoop.asmx',
    [
      {
        op: 'getNewsletter',
        args: {},
        check: (r) =>
          assert.deepEqual(r, {
            getNewsletterResult: {
              newsletter: {
                wsNewsletter: [
                  { name: 'Amtsblatt der Stadt Beispielstadt', newsletterID: 1 },
                  { name: 'Veranstaltungen & Kultur', newsletterID: 2 },
                ],
              },
            },
          }),
      },
      {
        op: 'getCityAppBereich',
        args: { cityAppBereichID: 10 },
        check: (r) =>
          assert.deepEqual(r, {
            getCityAppBereichResult: { cityAppBereich: { name: 'Freizeit & Kultur', cityAppBereichID: 10 } },
          }),
      },
    ],
  ],
  [
    '/scoop/api/v6/public.asmx',
    [
      {
        op: 'getBild',
        // node-soap writes whatever keys it is given: the item element is `resizeMode`, per the WSDL.
        args: { bildID: 200, width: 0, height: 0, resizeModes: { resizeMode: ['crop'] } },
        check(r, rawRequest) {
          assert.ok(
            rawRequest.includes('<resizeModes><resizeMode>crop</resizeMode></resizeModes>'),
            rawRequest,
          );
          assert.deepEqual(r, {
            getBildResult: {
              bild: {
                bildID: 200,
                filename: 'rathaus.jpg',
                bildunterschrift: 'Das Rathaus am Marktplatz – Sitz von Bürgermeister und Stadtverwaltung',
                bildrechte: '© Stadt Beispielstadt',
                alternativText:
                  'Zweigeschossiges Rathaus mit Uhrturm und rotem Dach, davor Bäume und Kopfsteinpflaster',
                size: 101261,
                mimetype: 'image/jpeg',
                data: base64Of('bilder/rathaus.jpg'),
                istTeaserbild: true,
                sort: 1,
              },
            },
          });
        },
      },
      {
        op: 'getAnhang',
        args: { anhangID: 502 },
        check: (r) =>
          assert.deepEqual(r, {
            getAnhangResult: {
              // No beschreibung in the bundle: the element is left out.
              anhang: {
                anhangID: 502,
                filename: 'merkblatt-winterdienst.txt',
                name: 'Merkblatt Winterdienst',
                size: 620,
                mimetype: 'text/plain',
                data: base64Of('anhaenge/merkblatt-winterdienst.txt'),
                sort: 1,
              },
            },
          }),
      },
      {
        op: 'getBereich',
        args: { bereichID: 1 },
        check: (r) =>
          assert.deepEqual(r, { getBereichResult: { bereich: { name: 'Rathaus & Politik', bereichID: 1 } } }),
      },
    ],
  ],
]);

type AsyncMethod = (
  args: Record<string, unknown>,
  options?: Record<string, unknown>,
) => Promise<[result: unknown, rawResponse: string, soapHeader: unknown, rawRequest: string]>;

let fixture: Fixture;
before(async () => {
  fixture = await startFixture({}, [path.resolve('examples/demo-bundle')]);
});
after(async () => {
  await fixture.stop();
});

async function clientFor(endpoint: Endpoint, version: SoapVersion, token?: string): Promise<soap.Client> {
  const client = await soap.createClientAsync(new URL(`${endpoint.path}?wsdl`, fixture.server.url).href, {
    forceSoap12Headers: version === '1.2',
    wsdl_options: NO_PROXY,
  });
  if (token !== undefined) client.addSoapHeader({ wsAuthHeader: { token } }, '', 'tns', NS);
  return client;
}

async function invoke(client: soap.Client, call: Call, version: SoapVersion) {
  const method = client[`${call.op}Async`] as AsyncMethod | undefined;
  assert.ok(method, `the client offers ${call.op}`);
  const answer = await method(call.args, NO_PROXY);
  const sent = String(client.lastRequestHeaders?.['Content-Type']);
  const received = String(client.lastResponseHeaders?.['content-type']);
  assert.ok(sent.startsWith(MEDIA_TYPE[version]), `${call.op} sent as ${sent}`);
  assert.equal(received, MEDIA_TYPE[version], `${call.op} answered as ${received}`);
  return answer;
}

for (const endpoint of ENDPOINTS) {
  const calls = CALLS.get(endpoint.path) ?? [];
  for (const version of VERSIONS) {
    test(`${endpoint.path}: every operation over SOAP ${version}`, async () => {
      const client = await clientFor(endpoint, version, endpoint.requiresToken ? REFERENCE_TOKEN : undefined);
      const expected = operationsAt(endpoint).map((op) => op.name);
      const ports = at(client.describe(), endpoint.serviceName);
      for (const port of ['Soap', 'Soap12'])
        assert.deepEqual(Object.keys(at(ports, `${endpoint.serviceName}${port}`) as object), expected, port);
      assert.deepEqual([...new Set(calls.map((c) => c.op))], expected, 'a call for every operation');

      for (const call of calls) {
        const [result, , , rawRequest] = await invoke(client, call, version);
        if (endpoint.requiresToken) assert.ok(rawRequest.includes(`<token>${REFERENCE_TOKEN}</token>`));
        call.check(result, rawRequest);
      }
    });
  }
}

interface FaultError extends Error {
  readonly root?: unknown;
  readonly response?: { readonly status: number };
}

test('a wrong token reaches node-soap as a SOAP fault, on SOAP 1.1 and 1.2, at every token endpoint', async () => {
  for (const endpoint of ENDPOINTS.filter((e) => e.requiresToken)) {
    const call = CALLS.get(endpoint.path)![0]!;
    for (const version of VERSIONS) {
      const client = await clientFor(endpoint, version, WRONG_TOKEN);
      const caught = await invoke(client, call, version).then(
        () => assert.fail(`${endpoint.path} ${call.op} answered despite the wrong token`),
        (error: FaultError) => error,
      );
      assert.equal(caught.response?.status, 500, 'HTTP status of a fault');
      const fault = at(caught.root, 'Envelope', 'Body', 'Fault');
      if (version === '1.1') {
        assert.deepEqual(fault, {
          faultcode: 'soap:Client',
          faultstring: 'Authentication failed: a valid token is required.',
          detail: { errorCode: 'AUTH_FAILED' },
        });
        assert.match(caught.message, /^soap:Client: Authentication failed: a valid token is required\./);
      } else {
        assert.equal(at(fault, 'Code', 'Value'), 'soap:Sender');
        assert.equal(
          at(fault, 'Reason', 'Text', '$value'),
          'Authentication failed: a valid token is required.',
        );
        assert.deepEqual(at(fault, 'Detail'), { errorCode: 'AUTH_FAILED' });
      }
    }
  }
});
