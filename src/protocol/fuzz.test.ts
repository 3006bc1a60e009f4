/**
 * Property-based fuzzing of the request decoders of all four bindings and of the
 * coercion step: whatever the input, the result is a well-formed decoded request or a
 * ScoopError with a catalogue code that this stage may raise — never another exception,
 * never a hang. Bounded by a fixed seed and run count (test/support/fuzz.ts; FUZZ_RUNS
 * and FUZZ_SEED scale it up locally).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  anyUnicode,
  contentType,
  ENDPOINTS,
  formText,
  fuzzRuns,
  mutatedEnvelope,
  NS,
  OPERATIONS,
  soapAction,
  xmlName,
} from '../../test/support/fuzz.ts';
import { ERRORS, type ErrorCode, ScoopError } from '../contract/errors.ts';
import type { Arguments, Endpoint, Operation } from '../contract/operations.ts';
import { DEFAULT_XML_LIMITS, type XmlLimits } from '../xml/reader.ts';
import { coerceArguments, parseInt32, type RawParameters } from './coerce.ts';
import { decodeBody, type MediaType, parseMediaType } from './content-type.ts';
import {
  bearerToken,
  formParameters,
  formToken,
  hasTokenField,
  parseForm,
  readFormBody,
} from './http-request.ts';
import { readRequestXml } from './request-xml.ts';
import { decodeSoapRequest, type SoapRequest } from './soap-request.ts';

/** A decoder taking longer than this on a small input would be a CPU bomb. */
const MAX_MS = 1_000;

/** The codes each stage may raise; anything else means an error was mapped to the wrong code. */
const XML_CODES: readonly ErrorCode[] = ['MALFORMED_XML', 'DTD_NOT_ALLOWED', 'XML_LIMIT_EXCEEDED'];
const SOAP_CODES: readonly ErrorCode[] = [
  ...XML_CODES,
  'EMPTY_BODY',
  'INVALID_ENCODING',
  'PROCESSING_INSTRUCTION',
  'NOT_SOAP',
  'SOAP_VERSION_MISMATCH',
  'INVALID_ENVELOPE',
  'DUPLICATE_HEADER',
  'DUPLICATE_PARAMETER',
  'MUST_UNDERSTAND',
  'UNKNOWN_OPERATION',
  'SOAP_ACTION_MISMATCH',
];
const FORM_CODES: readonly ErrorCode[] = ['INVALID_ENCODING'];
const FORM_BODY_CODES: readonly ErrorCode[] = ['INVALID_ENCODING', 'UNSUPPORTED_MEDIA_TYPE'];
const COERCE_CODES: readonly ErrorCode[] = [
  'MISSING_PARAMETER',
  'INVALID_PARAMETER',
  'DUPLICATE_PARAMETER',
  'TOO_MANY_VALUES',
];

type Outcome<T> = { readonly value: T } | { readonly code: ErrorCode };

/**
 * Runs one decoding step: its value, or the catalogue code it refused with. Any other
 * exception, a code outside the catalogue or outside `allowed`, or a slow run fails the property.
 */
function attempt<T>(allowed: readonly ErrorCode[], step: () => T): Outcome<T> {
  const started = performance.now();
  try {
    return { value: step() };
  } catch (error) {
    if (!(error instanceof ScoopError))
      throw new Error(`not a ScoopError: ${String(error)}`, { cause: error });
    assert.ok(Object.hasOwn(ERRORS, error.code), `${error.code} is not in the catalogue`);
    assert.ok(allowed.includes(error.code), `${error.code} (${error.message}) is not expected here`);
    assert.equal(typeof error.message, 'string');
    return { code: error.code };
  } finally {
    const ms = performance.now() - started;
    assert.ok(ms < MAX_MS, `took ${Math.round(ms)} ms`);
  }
}

function assertRawParameters(raw: RawParameters, operation: Operation): void {
  const names = new Set(operation.params.map((p) => p.name));
  for (const [name, values] of raw) {
    assert.ok(names.has(name), `unknown parameter ${name}`);
    assert.ok(Array.isArray(values) && values.every((v) => typeof v === 'string'));
  }
}

function assertSoapRequest(request: SoapRequest, endpoint: Endpoint): void {
  assert.ok(request.version === '1.1' || request.version === '1.2');
  assert.ok(OPERATIONS.includes(request.operation));
  assert.equal(request.operation.endpoint, endpoint, 'an operation of another endpoint');
  assert.ok(request.token === undefined || typeof request.token === 'string');
  assertRawParameters(request.parameters, request.operation);
}

const INT32 = { min: -2147483648, max: 2147483647 };

function assertArguments(args: Arguments, operation: Operation, maxListItems: number): void {
  const values = args as unknown as Record<string, unknown>;
  for (const param of operation.params) {
    const value = values[param.name];
    if (param.type.kind === 'array') {
      assert.ok(Array.isArray(value) && value.length <= maxListItems);
      const item = param.type.item;
      assert.ok(item.kind === 'enum');
      for (const v of value)
        assert.ok(item.values.includes(v as string), `${String(v)} is not a ${item.name}`);
    } else if (param.type.kind === 'scalar' && param.type.name === 'int') {
      assert.ok(Number.isInteger(value) && (value as number) >= INT32.min && (value as number) <= INT32.max);
      assert.ok(!Object.is(value, -0), '-0');
    } else {
      assert.ok(typeof value === 'string' && value.trim() !== '');
    }
  }
}

/** Coerces whatever a decoder produced, as the pipeline does next. */
function coerce(operation: Operation, raw: RawParameters): void {
  const limits = { maxListItems: 16 };
  const outcome = attempt(COERCE_CODES, () => coerceArguments(operation, raw, limits));
  if ('value' in outcome) assertArguments(outcome.value, operation, limits.maxListItems);
}

const soapMediaType: fc.Arbitrary<MediaType> = fc
  .tuple(fc.constantFrom('text/xml', 'application/soap+xml'), contentType)
  .map(([essence, header]) => {
    const parsed = parseMediaType(`${essence}; ${header.split(';').slice(1).join(';')}`);
    return parsed ?? { essence, params: new Map() };
  });

/** Sometimes tiny limits, so every limit is reached now and then. */
const xmlLimits: fc.Arbitrary<XmlLimits> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(DEFAULT_XML_LIMITS) },
  {
    weight: 1,
    arbitrary: fc.record({
      maxDepth: fc.integer({ min: 1, max: 8 }),
      maxElements: fc.integer({ min: 1, max: 20 }),
      maxAttributes: fc.integer({ min: 0, max: 4 }),
      maxDocumentAttributes: fc.integer({ min: 0, max: 8 }),
      maxNameLength: fc.integer({ min: 1, max: 20 }),
      maxTextLength: fc.integer({ min: 0, max: 64 }),
      maxAttributeLength: fc.integer({ min: 0, max: 64 }),
    }),
  },
);

describe('SOAP 1.1 / 1.2 decoding (decodeSoapRequest)', () => {
  test('mutated envelopes decode to a request or a catalogued refusal', () => {
    fc.assert(
      fc.property(
        mutatedEnvelope,
        soapMediaType,
        soapAction,
        xmlLimits,
        fc.constantFrom(...ENDPOINTS),
        (input, mediaType, action, limits, other) => {
          // Mostly the envelope's own endpoint, so decoding gets past the operation lookup.
          const endpoint = input.body.length % 4 === 0 ? other : input.operation.endpoint;
          const outcome = attempt(SOAP_CODES, () =>
            decodeSoapRequest({
              endpoint,
              namespace: NS,
              mediaType,
              soapAction: action,
              body: input.body,
              limits,
            }),
          );
          if ('value' in outcome) {
            assertSoapRequest(outcome.value, endpoint);
            coerce(outcome.value.operation, outcome.value.parameters);
          }
        },
      ),
      fuzzRuns(1_000),
    );
  });

  test('unmutated envelopes with any SOAPAction decode or refuse the action only', () => {
    fc.assert(
      fc.property(
        mutatedEnvelope.filter((e) => e.body.length > 0),
        soapAction,
        (input, action) => {
          const mediaType = parseMediaType(input.version === '1.1' ? 'text/xml' : 'application/soap+xml')!;
          const outcome = attempt(SOAP_CODES, () =>
            decodeSoapRequest({
              endpoint: input.operation.endpoint,
              namespace: NS,
              mediaType,
              soapAction: action,
              body: input.body,
              limits: DEFAULT_XML_LIMITS,
            }),
          );
          if ('value' in outcome) assertSoapRequest(outcome.value, input.operation.endpoint);
        },
      ),
      fuzzRuns(300),
    );
  });

  test('arbitrary bytes and arbitrary text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
          anyUnicode(200).map((s) => Buffer.from(s, 'utf8')),
        ),
        soapMediaType,
        fc.constantFrom(...ENDPOINTS),
        (body, mediaType, endpoint) => {
          const outcome = attempt(SOAP_CODES, () =>
            decodeSoapRequest({
              endpoint,
              namespace: NS,
              mediaType,
              soapAction: undefined,
              body,
              limits: DEFAULT_XML_LIMITS,
            }),
          );
          if ('value' in outcome) assertSoapRequest(outcome.value, endpoint);
        },
      ),
      fuzzRuns(500),
    );
  });
});

describe('the XML reader (parseXml, as readRequestXml maps its refusals)', () => {
  test('random element trees with random names, attributes and text', () => {
    const tree = fc.letrec<{ node: string }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        anyUnicode(10),
        fc
          .tuple(
            xmlName,
            fc.array(fc.tuple(xmlName, anyUnicode(6)), { maxLength: 3 }),
            fc.array(tie('node'), { maxLength: 4 }),
          )
          .map(
            ([name, attrs, children]) =>
              `<${name}${attrs.map(([k, v]) => ` ${k}="${v}"`).join('')}>${children.join('')}</${name}>`,
          ),
      ),
    }));
    fc.assert(
      fc.property(tree.node, xmlLimits, (xml, limits) => {
        const outcome = attempt(XML_CODES, () => readRequestXml(xml, limits));
        if ('value' in outcome) assert.equal(typeof outcome.value.root.local, 'string');
      }),
      fuzzRuns(1_000),
    );
  });
});

describe('HTTP GET decoding (query string)', () => {
  test('parseForm → formParameters → coerceArguments', () => {
    fc.assert(
      fc.property(formText, fc.constantFrom(...OPERATIONS), (query, operation) => {
        const pairs = attempt(FORM_CODES, () => parseForm(query));
        if (!('value' in pairs)) return;
        for (const pair of pairs.value)
          assert.ok(typeof pair.name === 'string' && typeof pair.value === 'string');
        assert.equal(typeof hasTokenField(pairs.value), 'boolean');
        // A character XML forbids in a parameter's value is refused here.
        const raw = attempt(['INVALID_PARAMETER'], () => formParameters(operation, pairs.value));
        if (!('value' in raw)) return;
        assertRawParameters(raw.value, operation);
        coerce(operation, raw.value);
      }),
      fuzzRuns(1_000),
    );
  });

  test('any Authorization header yields a token string or none', () => {
    fc.assert(
      fc.property(
        fc.option(
          fc.oneof(
            fc.string({ unit: 'binary-ascii', maxLength: 60 }),
            fc
              .tuple(fc.mixedCase(fc.constant('bearer')), fc.string({ maxLength: 40 }))
              .map(([s, t]) => `${s} ${t}`),
          ),
          { nil: undefined },
        ),
        (header) => {
          const token = attempt([], () => bearerToken(header));
          assert.ok('value' in token);
          if (header === undefined) assert.equal(token.value, undefined);
          else assert.equal(typeof token.value, 'string');
        },
      ),
      fuzzRuns(500),
    );
  });
});

describe('HTTP POST decoding (form body)', () => {
  test('readFormBody → formToken / formParameters → coerceArguments', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          formText.map((text) => Buffer.from(text, 'utf8')),
          formText.map((text) => Buffer.from(text, 'latin1')),
          fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
        ),
        fc.option(contentType, { nil: undefined }),
        fc.constantFrom(...OPERATIONS),
        (body, type, operation) => {
          const pairs = attempt(FORM_BODY_CODES, () => readFormBody(body, parseMediaType(type)));
          if (!('value' in pairs)) return;
          const token = attempt(['DUPLICATE_PARAMETER'], () => formToken(pairs.value));
          if ('value' in token) assert.ok(token.value === undefined || typeof token.value === 'string');
          const raw = attempt(['INVALID_PARAMETER'], () => formParameters(operation, pairs.value));
          if (!('value' in raw)) return;
          assertRawParameters(raw.value, operation);
          coerce(operation, raw.value);
        },
      ),
      fuzzRuns(1_000),
    );
  });
});

describe('Content-Type and body text', () => {
  test('parseMediaType never throws; decodeBody decodes or refuses the encoding', () => {
    fc.assert(
      fc.property(
        fc.option(contentType, { nil: undefined }),
        fc.uint8Array({ maxLength: 64 }),
        (header, body) => {
          const parsed = attempt([], () => parseMediaType(header));
          assert.ok('value' in parsed);
          const mediaType = parsed.value;
          if (mediaType) {
            assert.equal(mediaType.essence, mediaType.essence.toLowerCase());
            assert.match(mediaType.essence, /^[^/\s]+\/[^/\s]+$/);
          }
          const text = attempt(['INVALID_ENCODING'], () => decodeBody(body, mediaType));
          if ('value' in text) assert.equal(typeof text.value, 'string');
        },
      ),
      fuzzRuns(1_000),
    );
  });
});

describe('coercion (coerceArguments, parseInt32)', () => {
  const value = fc.oneof(
    fc.constantFrom(
      '1',
      ' 7 ',
      '+3',
      '-0',
      '0',
      '2147483647',
      '-2147483648',
      '2147483648',
      'standard',
      'crop',
      'fit',
      'STANDARD',
      '',
      ' ',
    ),
    fc.integer().map(String),
    fc.bigInt().map(String),
    fc.string({ maxLength: 12 }),
    anyUnicode(8),
  );

  test('any raw values become typed arguments or a coercion refusal', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...OPERATIONS),
        fc.array(fc.array(value, { maxLength: 20 }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 1, max: 20 }),
        (operation, lists, maxListItems) => {
          const raw = new Map<string, string[]>();
          operation.params.forEach((param, i) => {
            if (lists[i]!.length > 0 || i % 2 === 0) raw.set(param.name, lists[i]!);
          });
          const outcome = attempt(COERCE_CODES, () => coerceArguments(operation, raw, { maxListItems }));
          if ('value' in outcome) assertArguments(outcome.value, operation, maxListItems);
        },
      ),
      fuzzRuns(1_000),
    );
  });

  test('parseInt32 agrees with a BigInt model of xs:int', () => {
    const lexical = fc.oneof(
      fc
        .tuple(
          fc.constantFrom('', ' ', '\t', '\n', '\r\n '),
          fc.constantFrom('', '+', '-'),
          fc.oneof(fc.bigInt({ min: 0n, max: 1n << 40n }).map(String), fc.stringMatching(/^0{0,5}\d{1,12}$/)),
          fc.constantFrom('', ' ', '\t\n'),
        )
        .map((parts) => parts.join('')),
      value,
    );
    fc.assert(
      fc.property(lexical, (text) => {
        const outcome = attempt(['INVALID_PARAMETER'], () => parseInt32('p', text));
        const collapsed = text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
        const model = /^[+-]?[0-9]+$/.test(collapsed) ? BigInt(collapsed) : undefined;
        const inRange = model !== undefined && model >= -2147483648n && model <= 2147483647n;
        if (inRange) assert.deepEqual(outcome, { value: Number(model) }, text);
        else assert.deepEqual(outcome, { code: 'INVALID_PARAMETER' }, text);
      }),
      fuzzRuns(1_000),
    );
  });
});
