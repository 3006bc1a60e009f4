/**
 * The fast path must never change what the reader answers: wherever it returns a tree,
 * saxes (the reader without it) parses the same text into the same tree; wherever saxes
 * refuses, it returns nothing. Checked on every request body of the wire corpus, on SOAP
 * requests the contract encodes, and on random mutations of them.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { OPERATIONS } from '../contract/operations.ts';
import { encodeRequest } from '../protocol/client-request.ts';
import { DEFAULT_XML_LIMITS, type XmlElement, type XmlLimits } from './document.ts';
import { parsePlainXml } from './plain-reader.ts';
import { parseWithSaxes } from './reader.ts';

function shape(element: XmlElement): unknown {
  const namespaces: Record<string, string> = {};
  for (const prefix in element.namespaces) namespaces[prefix] = element.namespaces[prefix]!;
  return {
    uri: element.uri,
    local: element.local,
    prefix: element.prefix,
    attributes: element.attributes.map((a) => ({ ...a })),
    text: element.text,
    namespaces,
    children: element.children.map((c) => shape(c)),
  };
}

/** Compares the fast path with saxes on one text; true when the fast path took it. */
function agrees(text: string, limits: XmlLimits = DEFAULT_XML_LIMITS): boolean {
  const plain = parsePlainXml(text, limits);
  if (plain === undefined) return false;
  const saxes = saxesOnly(text, limits);
  assert.deepEqual(shape(plain.root), saxes, `the fast path and saxes differ on ${JSON.stringify(text)}`);
  return true;
}

/** saxes alone: its tree, or its refusal's kind. */
function saxesOnly(text: string, limits: XmlLimits): unknown {
  try {
    return shape(parseWithSaxes(text, limits).root);
  } catch (error) {
    return { refused: (error as { kind?: string }).kind ?? String(error) };
  }
}

function corpusBodies(): string[] {
  const dir = 'test/wire';
  const bodies: string[] = [];
  for (const name of readdirSync(dir)) {
    const request = readFileSync(path.join(dir, name, 'request.http'), 'latin1');
    const at = request.indexOf('\r\n\r\n') === -1 ? request.indexOf('\n\n') : request.indexOf('\r\n\r\n');
    if (at === -1) continue;
    const body = Buffer.from(request.slice(at).replace(/^\r?\n\r?\n/, ''), 'latin1').toString('utf8');
    if (body.includes('<')) bodies.push(body);
  }
  return bodies;
}

function encodedBodies(): string[] {
  const bodies: string[] = [];
  for (const operation of OPERATIONS) {
    for (const binding of ['soap11', 'soap12'] as const) {
      const args = Object.fromEntries(
        operation.params.map((p) => [
          p.name,
          p.name === 'email' ? 'a&b@example.org' : p.name === 'resizeModes' ? ['crop'] : 1,
        ]),
      );
      const request = encodeRequest(binding, operation, args, {
        namespace: 'http://scoop.example.org/api',
        token: '11111111-1111-1111-1111-111111111111',
      });
      if (request.body) bodies.push(request.body);
    }
  }
  return bodies;
}

const SEEDS = [...corpusBodies(), ...encodedBodies()];

test('the seeds are SOAP requests, and most take the fast path', () => {
  assert.ok(SEEDS.length > 40, `${SEEDS.length} seeds`);
  const fast = SEEDS.filter((text) => parsePlainXml(text, DEFAULT_XML_LIMITS) !== undefined);
  assert.ok(fast.length > SEEDS.length / 2, `only ${fast.length} of ${SEEDS.length} took the fast path`);
  for (const text of encodedBodies()) assert.ok(parsePlainXml(text, DEFAULT_XML_LIMITS), text);
});

test('on every seed, the fast path builds what saxes builds, or declines', () => {
  for (const text of SEEDS) agrees(text);
});

test('it declines what it does not handle, and saxes decides', () => {
  const base = '<a xmlns="urn:x"><b>1</b></a>';
  for (const text of [
    '<a><!-- c --></a>',
    '<a><![CDATA[x]]></a>',
    '<?pi x?><a/>',
    '<a>x\r\ny</a>',
    '<a b="x&amp;y"/>',
    '<a b="x\ny"/>',
    '<ä/>',
    '\uFEFF<a/>',
    '<a>&unknown;</a>',
    '<a>&#0;</a>',
    '<p:a/>',
    '<a/><b/>',
    '<a>]]></a>',
    '<a></b>',
    '<a>',
    'text',
    '',
  ])
    assert.equal(parsePlainXml(text, DEFAULT_XML_LIMITS), undefined, text);
  assert.ok(parsePlainXml(base, DEFAULT_XML_LIMITS));
  assert.equal(parsePlainXml(base, { ...DEFAULT_XML_LIMITS, maxDepth: 1 }), undefined, 'a limit reached');
  assert.equal(parsePlainXml(base, { ...DEFAULT_XML_LIMITS, maxElements: 1 }), undefined);
});

test('references and namespaces come out as saxes makes them', () => {
  for (const text of [
    '<a>&amp;&lt;&gt;&quot;&apos;&#65;&#x1F600;&#13;</a>',
    '<?xml version="1.0" encoding="utf-8" standalone="yes"?>\n<p:a xmlns:p="urn:p" xmlns="urn:d" x="1" p:y="2"><b xmlns=""/><c/></p:a>\n',
    "<?xml version='1.0'?><a b='1'  c = \"2\" ></a >",
  ]) {
    assert.ok(parsePlainXml(text, DEFAULT_XML_LIMITS), text);
    agrees(text);
  }
});

/** What keeps a document plain, mostly: so both the fast path and its refusals get exercised. */
const BENIGN = [
  'a',
  'Z',
  '0',
  ' ',
  '>',
  '"',
  "'",
  '&amp;',
  '&lt;',
  '&#65;',
  '&#x1F600;',
  'é',
  '€',
  '=',
  ':',
  '.',
  '-',
];
const ALPHABET = [
  '<',
  '>',
  '/',
  '&',
  ';',
  '"',
  "'",
  '=',
  ':',
  ' ',
  '\t',
  '\n',
  '\r',
  '!',
  '?',
  '[',
  ']',
  '-',
  '#',
  'x',
  'a',
  'p',
  'xmlns',
  'amp',
  '&#',
  '\u0000',
  'é',
  '\uD83D',
  '\uFFFE',
];

test('on random mutations of the seeds, the fast path never differs from saxes', () => {
  const mutation = fc.record({
    seed: fc.nat(SEEDS.length - 1),
    edits: fc.array(
      fc.record({
        at: fc.double({ min: 0, max: 1, noNaN: true }),
        cut: fc.oneof(fc.constant(0), fc.nat(4)),
        insert: fc.array(
          fc.oneof(
            { arbitrary: fc.constantFrom(...BENIGN), weight: 3 },
            { arbitrary: fc.constantFrom(...ALPHABET), weight: 1 },
          ),
          { maxLength: 3 },
        ),
      }),
      { minLength: 1, maxLength: 2 },
    ),
  });
  let taken = 0;
  let runs = 0;
  fc.assert(
    fc.property(mutation, ({ seed, edits }) => {
      runs++;
      let text = SEEDS[seed]!;
      for (const edit of edits) {
        const at = Math.floor(edit.at * text.length);
        text = text.slice(0, at) + edit.insert.join('') + text.slice(at + edit.cut);
      }
      if (agrees(text)) taken++;
    }),
    { numRuns: 50_000 },
  );
  // Mutations inside text or between attributes keep many documents plain: both sides are tried.
  assert.ok(taken > runs / 20 && taken < runs, `the fast path took ${taken} of ${runs} mutations`);
});
