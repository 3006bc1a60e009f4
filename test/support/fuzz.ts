/**
 * Shared pieces of the property-based fuzz tests (fast-check): the run parameters, the
 * valid requests mutated into hostile ones, and the mutations themselves.
 *
 * Bounded for CI: a fixed seed and a fixed number of runs per property. Locally,
 * `FUZZ_RUNS=20000` scales every property up and `FUZZ_SEED=<n>` explores other inputs
 * (a failure prints the seed and path that replay it).
 */
import fc from 'fast-check';
import { ENDPOINTS, OPERATIONS, type Operation } from '../../src/contract/operations.ts';
import { REFERENCE_TOKEN } from './fixture-server.ts';

export const NS = 'http://scoop.example.org/api';
const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';

const DEFAULT_SEED = 20_261_122;

function positiveInteger(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

/** fast-check parameters: `FUZZ_RUNS` scales `runs` up (or down), `FUZZ_SEED` changes the seed. */
export function fuzzRuns(runs: number): { seed: number; numRuns: number } {
  return {
    seed: positiveInteger(process.env.FUZZ_SEED) ?? DEFAULT_SEED,
    numRuns: positiveInteger(process.env.FUZZ_RUNS) ?? runs,
  };
}

/** Sample values that make a valid call of each parameter type. */
function sampleParams(operation: Operation): string {
  return operation.params
    .map((p) => {
      if (p.type.kind === 'array') return `<${p.name}><resizeMode>standard</resizeMode></${p.name}>`;
      if (p.type.kind === 'scalar' && p.type.name === 'string') return `<${p.name}>a@example.org</${p.name}>`;
      return `<${p.name}>${p.name === 'width' || p.name === 'height' ? 0 : 1}</${p.name}>`;
    })
    .join('');
}

const AUTH_HEADER = `<wsAuthHeader xmlns="${NS}"><token>${REFERENCE_TOKEN}</token></wsAuthHeader>`;

export function validEnvelope(version: '1.1' | '1.2', operation: Operation): string {
  const ns = version === '1.1' ? SOAP11_NS : SOAP12_NS;
  const header = operation.endpoint.requiresToken ? `<soap:Header>${AUTH_HEADER}</soap:Header>` : '';
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${ns}" ` +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">${header}<soap:Body>` +
    `<${operation.name} xmlns="${NS}">${sampleParams(operation)}</${operation.name}></soap:Body></soap:Envelope>`
  );
}

/** Every operation as a valid SOAP 1.1 and 1.2 envelope: the seeds that mutations start from. */
export const SEED_ENVELOPES: readonly { version: '1.1' | '1.2'; operation: Operation; xml: string }[] =
  OPERATIONS.flatMap((operation) =>
    (['1.1', '1.2'] as const).map((version) => ({
      version,
      operation,
      xml: validEnvelope(version, operation),
    })),
  );

/** A string of any UTF-16 code units, lone surrogates included. */
export const anyUnicode = (maxLength = 16): fc.Arbitrary<string> =>
  fc.string({
    maxLength,
    unit: fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
    ),
  });

/** An XML-ish name: usually a valid (possibly prefixed) one, sometimes anything. */
export const xmlName: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z_][\w.-]{0,12}(?::[A-Za-z_][\w.-]{0,10})?$/) },
  { weight: 1, arbitrary: anyUnicode(12) },
);

/** Pieces that XML parsers and SOAP decoders are sensitive to. */
const SNIPPETS = [
  '<!',
  '&',
  ']]>',
  '<![CDATA[',
  '-->',
  '<!--',
  '<!DOCTYPE x [<!ENTITY e SYSTEM "http://127.0.0.1:9/">]>',
  '<!ENTITY e "x">',
  '&e;',
  '&amp;',
  '&#0;',
  '&#xD800;',
  '&#x10FFFF;',
  '<?pi x?>',
  '<?xml version="1.0"?>',
  '\u0000',
  '"',
  "'",
  '<',
  '>',
  '/>',
  '</',
  ' xmlns="urn:x"',
  ' xmlns:soap="urn:x"',
  ' xmlns:p=""',
  ' soap:mustUnderstand="1"',
  ' xsi:nil="true"',
  '<soap:Header>',
  '</soap:Header>',
  '<soap:Body>',
  '</soap:Body>',
  AUTH_HEADER,
  '<token>x</token>',
  '<resizeMode>crop</resizeMode>',
  '2147483648',
  '-1',
  ' ',
  '\r\n',
];

/** One edit of a byte buffer; positions are taken modulo the current length. */
export type Mutation = (input: Buffer) => Buffer;

function at(input: Buffer, position: number): number {
  return input.length === 0 ? 0 : position % (input.length + 1);
}

const flip: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.integer({ min: 0, max: 255 }))
  .map(([position, byte]) => (input: Buffer) => {
    if (input.length === 0) return Buffer.from([byte]);
    const out = Buffer.from(input);
    out[position % input.length] = byte;
    return out;
  });

const truncate: fc.Arbitrary<Mutation> = fc
  .nat()
  .map((position) => (input: Buffer) => input.subarray(0, at(input, position)));

const remove: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.integer({ min: 1, max: 64 }))
  .map(([position, length]) => (input: Buffer) => {
    const start = at(input, position);
    return Buffer.concat([input.subarray(0, start), input.subarray(start + length)]);
  });

const duplicate: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.integer({ min: 1, max: 128 }), fc.nat())
  .map(([from, length, to]) => (input: Buffer) => {
    const start = at(input, from);
    const piece = input.subarray(start, start + length);
    const target = at(input, to);
    return Buffer.concat([input.subarray(0, target), piece, input.subarray(target)]);
  });

const insertion: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SNIPPETS).map((s) => Buffer.from(s, 'utf8')) },
  // Lone surrogates as JS text become U+FFFD in UTF-8; as raw (CESU-8) bytes they are invalid UTF-8.
  { weight: 2, arbitrary: anyUnicode(8).map((s) => Buffer.from(s, 'utf8')) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom([0xed, 0xa0, 0x80], [0xc0, 0xbc], [0xff], [0xef, 0xbf, 0xbe])
      .map((b) => Buffer.from(b)),
  },
  { weight: 2, arbitrary: xmlName.map((name) => Buffer.from(`<${name}>`, 'utf8')) },
  { weight: 1, arbitrary: xmlName.map((name) => Buffer.from(`</${name}>`, 'utf8')) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(xmlName, anyUnicode(8))
      .map(([name, value]) => Buffer.from(` ${name}="${value}"`, 'utf8')),
  },
);

const insert: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), insertion)
  .map(([position, piece]) => (input: Buffer) => {
    const target = at(input, position);
    return Buffer.concat([input.subarray(0, target), piece, input.subarray(target)]);
  });

const PARAMETER_NAMES = [...new Set(OPERATIONS.flatMap((op) => op.params.map((p) => p.name)))];

/** Well-formed fragments, so that many mutants get past the parser into the SOAP rules. */
const fragment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '<x/>',
    '<!-- c -->',
    '<![CDATA[1]]>',
    '<soap:Header/>',
    '<soap:Body/>',
    AUTH_HEADER,
    `<wsAuthHeader xmlns="${NS}"/>`,
    `<token xmlns="${NS}">not-a-guid</token>`,
    '<h xmlns="urn:h" soap:mustUnderstand="1"/>',
    '<h xmlns="urn:h" soap:mustUnderstand="true" soap:role="http://www.w3.org/2003/05/soap-envelope/role/none"/>',
    '<h xmlns="urn:h" soap:mustUnderstand="1" soap:actor="urn:other"/>',
    `<resizeMode xmlns="${NS}">fit</resizeMode>`,
    `<resizeModes xmlns="${NS}"/>`,
    '<?pi?>',
  ),
  fc
    .tuple(
      fc.constantFrom(...PARAMETER_NAMES, ...OPERATIONS.map((op) => op.name)),
      fc.constantFrom('1', '-1', '', 'x', 'standard', '99999999999'),
    )
    .map(([name, value]) => `<${name} xmlns="${NS}">${value}</${name}>`),
  fc.constantFrom(...PARAMETER_NAMES).map((name) => `<${name} xmlns="${NS}" xsi:nil="true"/>`),
);

/** Inserts a well-formed fragment after the n-th `>`, i.e. between markup. */
const insertFragment: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fragment)
  .map(([n, piece]) => (input: Buffer) => {
    const boundaries: number[] = [];
    for (let i = input.indexOf('>'); i >= 0; i = input.indexOf('>', i + 1)) boundaries.push(i + 1);
    const target = boundaries.length === 0 ? 0 : boundaries[n % boundaries.length]!;
    return Buffer.concat([input.subarray(0, target), Buffer.from(piece, 'utf8'), input.subarray(target)]);
  });

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 2, arbitrary: flip },
  { weight: 1, arbitrary: truncate },
  { weight: 2, arbitrary: remove },
  { weight: 1, arbitrary: duplicate },
  { weight: 4, arbitrary: insert },
  { weight: 6, arbitrary: insertFragment },
);

export interface Mutant {
  readonly version: '1.1' | '1.2';
  readonly operation: Operation;
  readonly body: Buffer;
}

function mutants(edits: fc.Arbitrary<Mutation>, maxEdits: number): fc.Arbitrary<Mutant> {
  return fc
    .tuple(fc.constantFrom(...SEED_ENVELOPES), fc.array(edits, { minLength: 0, maxLength: maxEdits }))
    .map(([seed, mutations]) => ({
      version: seed.version,
      operation: seed.operation,
      body: mutations.reduce<Buffer>((body, mutate) => mutate(body), Buffer.from(seed.xml, 'utf8')),
    }));
}

/**
 * A valid envelope with up to 6 edits of any kind (mostly not well-formed any more), or
 * with up to 4 well-formed fragments inserted (mostly still XML, so the SOAP rules are reached).
 */
export const mutatedEnvelope: fc.Arbitrary<Mutant> = fc.oneof(
  mutants(mutation, 6),
  mutants(insertFragment, 4),
);

/** Content-Type values: the usual ones, with odd parameters, and arbitrary text. */
export const contentType: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom('text/xml', 'application/soap+xml', 'application/x-www-form-urlencoded', 'TEXT/XML'),
        fc.array(
          fc.oneof(
            fc.constantFrom(
              'charset=utf-8',
              'charset="UTF-8"',
              'charset=iso-8859-1',
              'charset=us-ascii',
              'charset=utf-16',
              'charset=',
              'charset=""',
              `action="${NS}/getBereich"`,
              'action="urn:x;y"',
              'action=',
              'action="\\"',
            ),
            fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 12 })).map(([k, v]) => `${k}=${v}`),
          ),
          { maxLength: 3 },
        ),
      )
      .map(([essence, params]) => [essence, ...params].join('; ')),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
);

/** SOAPAction header values: right, wrong, empty, unquoted, or arbitrary. */
export const soapAction: fc.Arbitrary<string | undefined> = fc.option(
  fc.oneof(
    fc.constantFrom(
      ...OPERATIONS.map((op) => `"${NS}/${op.name}"`),
      '""',
      '',
      `${NS}/getBereich`,
      '"',
      '"urn:x"',
    ),
    fc.string({ unit: 'binary-ascii', maxLength: 40 }),
  ),
  { nil: undefined },
);

/** Query strings and form bodies: structured pairs with hostile names and values, or raw text. */
export const formText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.oneof(
            { weight: 8, arbitrary: fc.constantFrom(...PARAMETER_NAMES, 'BereichID', 'WIDTH') },
            { weight: 1, arbitrary: fc.constantFrom('token', 'TOKEN', '') },
            { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
          ),
          fc.option(
            fc.oneof(
              fc.constantFrom(
                '1',
                '0',
                '-1',
                '2147483648',
                'standard',
                'crop,fit',
                '',
                '%',
                '%ZZ',
                '%C3%28',
                '%00',
                '%0d%0a',
                '+1',
                REFERENCE_TOKEN,
              ),
              fc.integer().map(String),
              fc.string({ maxLength: 12 }),
              anyUnicode(6).map((s) => Buffer.from(s, 'utf8').toString('latin1')),
            ),
            { nil: undefined },
          ),
        ),
        { maxLength: 8 },
      )
      .map((pairs) =>
        pairs.map(([name, value]) => (value === undefined ? name : `${name}=${value}`)).join('&'),
      ),
  },
  { weight: 1, arbitrary: fc.webQueryParameters() },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 60 }) },
);

export { ENDPOINTS, OPERATIONS };
