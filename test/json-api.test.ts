/**
 * The JSON API against the XML it is derived from, on every database: each operation's
 * JSON answer holds what its HTTP GET answer holds (the same fields and values, `null`
 * where XML omits a value or sends nil), and each `contentUrl` serves the bytes the XML
 * carries in base64 — for the reference bundle, the wire corpus' extras and edge cases
 * (CR/LF, empty versus absent strings, a 0-byte and a 1 MiB attachment), and for every
 * record of the demo content (examples/demo-bundle).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Arguments, OPERATIONS, type Operation } from '../src/contract/operations.ts';
import type { ValueType } from '../src/contract/schema.ts';
import { encodeRequest } from '../src/protocol/client-request.ts';
import { childElements, DEFAULT_XML_LIMITS, parseXml, type XmlElement } from '../src/xml/reader.ts';
import { bundleJson, pattern, scratch } from './support/bundles.ts';
import { DATABASES } from './support/databases.ts';
import {
  EXTRAS_BUNDLE,
  type Fixture,
  REFERENCE_BUNDLE,
  REFERENCE_TOKEN,
  startFixture,
} from './support/fixture-server.ts';

const NS = 'http://scoop.example.org/api';
const DEMO_BUNDLE = path.resolve('examples/demo-bundle');
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const MIB = pattern(1024 * 1024, 7);

const area = scratch();
/** The edge cases: line ends, empty and absent strings, binaries of 0 bytes and 1 MiB. */
const EDGES = area.bundle(
  bundleJson({
    mode: 'upsert',
    bereiche: [{ bereichID: 4, name: 'Zeile 1\r\nZeile 2\rZeile 3\nEnde' }],
    anhaenge: [
      {
        anhangID: 600,
        file: 'files/leer.bin',
        filename: 'leer.bin',
        name: '',
        mimetype: 'application/octet-stream',
        sort: 1,
      },
      {
        anhangID: 601,
        file: 'files/gross.bin',
        filename: 'groß daten.bin',
        name: 'Groß',
        beschreibung: 'x',
        mimetype: 'application/octet-stream',
        sort: 2,
      },
    ],
    artikel: [
      {
        artikelID: 104,
        text: '',
        bereiche: [4],
        anhaenge: [600, 601],
        kontakte: [
          { einrichtung: null, art: 'persoenlich', name: '', abteilung: null, email: 'a@example.org' },
        ],
      },
    ],
  }),
  { 'files/leer.bin': new Uint8Array(0), 'files/gross.bin': MIB },
);

function operation(name: string): Operation {
  return OPERATIONS.find((op) => op.name === name)!;
}

/** Every operation, with arguments that reach the reference records and the edge cases. */
const CASES: ReadonlyArray<readonly [string, Arguments]> = [
  ['getBereich', { bereichID: 1 }],
  ['getBereich', { bereichID: 3 }],
  ['getBereich', { bereichID: 4 }],
  ['getCityAppBereich', { cityAppBereichID: 10 }],
  ['getArtikelDetails', { artikelID: 100 }],
  ['getArtikelDetails', { artikelID: 101 }],
  ['getArtikelDetails', { artikelID: 104 }],
  ['getAnhang', { anhangID: 500 }],
  ['getAnhang', { anhangID: 501 }],
  ['getAnhang', { anhangID: 600 }],
  ['getAnhang', { anhangID: 601 }],
  ['getBild', { bildID: 200, width: 0, height: 0, resizeModes: [] }],
  ['getBild', { bildID: 201, width: 0, height: 0, resizeModes: [] }],
  ['getBild', { bildID: 200, width: 10, height: 6, resizeModes: ['crop'] }],
  ['getNewsletter', {}],
  ['getAbonnierteNewsletter', { email: 'anna@example.org' }],
  ['getAbonnierteNewsletter', { email: 'jörg.müller@example.org' }],
  ['getAbonnierteNewsletter', { email: 'niemand@example.org' }],
  ['checkAnhangVorhanden', { anhangID: 500 }],
  ['checkAnhangVorhanden', { anhangID: 999 }],
];

/** A value read from the XML answer by its contract type; binaries as their bytes. */
function fromXml(element: XmlElement | undefined, type: ValueType): unknown {
  if (element === undefined) return null;
  if (element.attributes.some((a) => a.uri === XSI && a.local === 'nil' && a.value === 'true')) return null;
  switch (type.kind) {
    case 'enum':
      return element.text;
    case 'scalar':
      switch (type.name) {
        case 'int':
          return Number(element.text);
        case 'boolean':
          return element.text === 'true';
        case 'base64Binary':
          return Buffer.from(element.text, 'base64');
        default:
          return element.text;
      }
    case 'array':
      return childElements(element, NS, type.itemName).map((item) => fromXml(item, type.item));
    case 'complex':
      return Object.fromEntries(
        type.fields.map((f) => [f.name, fromXml(childElements(element, NS, f.name)[0], f.type)]),
      );
  }
}

/**
 * Text as an XML parser reads it: XML 1.0 §2.11 turns CR LF and CR into LF, and the XML
 * answers carry CR unescaped, as the original's serializer writes it. JSON keeps the
 * stored text exactly (checked below).
 */
function lineEnds(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\r\n?/g, '\n');
  if (Array.isArray(value)) return value.map(lineEnds);
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, lineEnds(v)]));
}

async function call(fixture: Fixture, binding: 'httpget' | 'json', name: string, args: Arguments) {
  const request = encodeRequest(binding, operation(name), args, { namespace: NS, token: REFERENCE_TOKEN });
  return fetch(`${fixture.server.url}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.method === 'POST' ? { body: request.body } : {}),
  });
}

/**
 * The JSON value with each `contentUrl` replaced by the bytes it serves under `data`, in
 * the place the XML has them, so the two answers compare as equal values.
 */
async function resolveContent(fixture: Fixture, value: unknown): Promise<unknown> {
  if (Array.isArray(value)) return Promise.all(value.map((v) => resolveContent(fixture, v)));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === 'contentUrl') {
      assert.equal(typeof field, 'string');
      const answer = await fetch(`${fixture.server.url}${field}`);
      assert.equal(answer.status, 200, String(field));
      out.data = Buffer.from(await answer.arrayBuffer());
    } else out[key] = await resolveContent(fixture, field);
  }
  return out;
}

/** Every record of the demo content, through every operation that reads it. */
type Case = readonly [string, Arguments];

function demoCases(): Case[] {
  const bundle = JSON.parse(readFileSync(path.join(DEMO_BUNDLE, 'bundle.json'), 'utf8')) as Record<
    string,
    Array<Record<string, unknown>>
  >;
  const ids = (kind: string, key: string) => (bundle[kind] ?? []).map((r) => Number(r[key]));
  const cases = (name: string, args: Arguments): Case[] => [[name, args]];
  return [
    ...ids('bereiche', 'bereichID').map((id) => ['getBereich', { bereichID: id }] as const),
    ...ids('cityAppBereiche', 'cityAppBereichID').map(
      (id) => ['getCityAppBereich', { cityAppBereichID: id }] as const,
    ),
    ...ids('artikel', 'artikelID').map((id) => ['getArtikelDetails', { artikelID: id }] as const),
    ...ids('anhaenge', 'anhangID').flatMap((id) => [
      ['getAnhang', { anhangID: id }] as const,
      ['checkAnhangVorhanden', { anhangID: id }] as const,
    ]),
    ...ids('bilder', 'bildID').flatMap((id) => [
      ...cases('getBild', { bildID: id, width: 0, height: 0, resizeModes: [] }),
      ...cases('getBild', { bildID: id, width: 120, height: 80, resizeModes: ['crop'] }),
    ]),
    ['getNewsletter', {}],
    ...(bundle.abonnements ?? []).map(
      (a) => ['getAbonnierteNewsletter', { email: String(a.email) }] as const,
    ),
  ];
}

const CONTENTS = [
  {
    title: 'the reference bundle, the wire extras and edge cases',
    bundles: [REFERENCE_BUNDLE, EXTRAS_BUNDLE, EDGES],
    cases: CASES,
  },
  { title: 'the demo content', bundles: [DEMO_BUNDLE], cases: demoCases() },
];

for (const db of DATABASES) {
  for (const content of CONTENTS) {
    describe(
      `the JSON API equals the XML answers: ${content.title} (${db.name})`,
      { skip: db.skip ?? false },
      () => {
        let fixture: Fixture;
        before(async () => {
          fixture = await startFixture({}, content.bundles, db);
        });
        after(() => fixture?.stop());

        test('every operation is among the cases', () => {
          const covered = new Set(content.cases.map(([name]) => name));
          assert.deepEqual(
            OPERATIONS.map((op) => op.name).filter((n) => !covered.has(n)),
            [],
          );
        });

        for (const [name, args] of content.cases) {
          test(`${name} ${JSON.stringify(args)}`, async () => {
            const xmlAnswer = await call(fixture, 'httpget', name, args);
            const jsonAnswer = await call(fixture, 'json', name, args);
            if (xmlAnswer.status !== 200) {
              // Refused alike (an article outside its visibility window, say).
              assert.equal(jsonAnswer.status, xmlAnswer.status);
              return;
            }
            const doc = parseXml(await xmlAnswer.text(), {
              ...DEFAULT_XML_LIMITS,
              maxTextLength: 4 * MIB.length,
            });
            const member = operation(name).result.fields[0]!;
            const expected = fromXml(childElements(doc.root, NS, member.name)[0], member.type);
            if (name === 'checkAnhangVorhanden') {
              assert.equal(jsonAnswer.status, expected ? 200 : 404);
              assert.equal((await jsonAnswer.arrayBuffer()).byteLength, 0);
              return;
            }
            assert.equal(jsonAnswer.status, 200);
            assert.equal(jsonAnswer.headers.get('content-type'), 'application/json');
            const actual = await resolveContent(fixture, await jsonAnswer.json());
            assert.deepEqual(lineEnds(actual), expected);
          });
        }
      },
    );
  }

  describe(`the JSON API keeps what XML cannot show (${db.name})`, { skip: db.skip ?? false }, () => {
    let fixture: Fixture;
    before(async () => {
      fixture = await startFixture({}, [REFERENCE_BUNDLE, EXTRAS_BUNDLE, EDGES], db);
    });
    after(() => fixture?.stop());

    test('JSON keeps CR and CR LF as stored', async () => {
      const answer = await call(fixture, 'json', 'getBereich', { bereichID: 4 });
      assert.deepEqual(await answer.json(), { name: 'Zeile 1\r\nZeile 2\rZeile 3\nEnde', bereichID: 4 });
    });

    test('the 1 MiB attachment and the empty one are served as stored', async () => {
      const big = await fetch(`${fixture.server.url}/api/v1/anhaenge/601/content`);
      assert.equal(big.headers.get('content-length'), String(MIB.length));
      assert.equal(big.headers.get('content-type'), 'application/octet-stream');
      assert.equal(
        big.headers.get('content-disposition'),
        `inline; filename="gro_ daten.bin"; filename*=UTF-8''gro%C3%9F%20daten.bin`,
      );
      assert.ok(Buffer.from(await big.arrayBuffer()).equals(MIB));
      const empty = await fetch(`${fixture.server.url}/api/v1/anhaenge/600/content`);
      assert.equal(empty.status, 200);
      assert.equal(empty.headers.get('content-length'), '0');
    });
  });
}
