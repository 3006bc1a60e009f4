import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertScoopError } from '../../test/support/assertions.ts';
import type { ErrorCode } from '../contract/errors.ts';
import { type Endpoint, PUBLIC_V6, SCOOP_V5, SCOOP_V6, SCOOP_V7 } from '../contract/operations.ts';
import { DEFAULT_XML_LIMITS, type XmlLimits } from '../xml/reader.ts';
import { parseMediaType } from './content-type.ts';
import {
  SOAP11_ACTOR_NEXT,
  SOAP11_ENVELOPE_NS,
  SOAP12_ENVELOPE_NS,
  SOAP12_ROLE_NEXT,
  SOAP12_ROLE_NONE,
  SOAP12_ROLE_ULTIMATE_RECEIVER,
} from './namespaces.ts';
import {
  decodeSoapRequest,
  isSoapMediaType,
  SOAP11_MEDIA_TYPE,
  SOAP12_MEDIA_TYPE,
  type SoapRequest,
  versionByMediaType,
} from './soap-request.ts';

const NS = 'http://scoop.example.org/api';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const TOKEN = '11111111-1111-1111-1111-111111111111';
const CT11 = 'text/xml; charset=utf-8';
const CT12 = 'application/soap+xml; charset=utf-8';

type Version = '1.1' | '1.2';

interface EnvelopeParts {
  readonly header?: string;
  readonly body?: string;
  /** Markup after the Body, inside the Envelope. */
  readonly trailer?: string;
}

/** An envelope as the help pages lay it out: prefix `soap`, xsi declared on the Envelope. */
function envelope(version: Version, parts: EnvelopeParts): string {
  const ns = version === '1.1' ? SOAP11_ENVELOPE_NS : SOAP12_ENVELOPE_NS;
  const header = parts.header === undefined ? '' : `<soap:Header>${parts.header}</soap:Header>`;
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<soap:Envelope xmlns:soap="${ns}" xmlns:xsi="${XSI}">` +
    `${header}<soap:Body>${parts.body ?? ''}</soap:Body>${parts.trailer ?? ''}</soap:Envelope>`
  );
}

const getBereich = (id = '1') => `<getBereich xmlns="${NS}"><bereichID>${id}</bereichID></getBereich>`;
const authHeader = (token = TOKEN) => `<wsAuthHeader xmlns="${NS}"><token>${token}</token></wsAuthHeader>`;

interface Call {
  readonly endpoint?: Endpoint;
  readonly contentType?: string;
  readonly soapAction?: string;
  readonly limits?: XmlLimits;
}

function decode(xml: string | Uint8Array, call: Call = {}): SoapRequest {
  const mediaType = parseMediaType(call.contentType ?? CT12);
  assert.ok(mediaType);
  return decodeSoapRequest({
    endpoint: call.endpoint ?? PUBLIC_V6,
    namespace: NS,
    mediaType,
    soapAction: call.soapAction,
    body: typeof xml === 'string' ? new Uint8Array(Buffer.from(xml, 'utf8')) : xml,
    limits: call.limits ?? DEFAULT_XML_LIMITS,
  });
}

function refuses(xml: string, code: ErrorCode, call: Call = {}) {
  return assertScoopError(() => decode(xml, call), code);
}

function params(request: SoapRequest): Record<string, readonly string[]> {
  return Object.fromEntries(request.parameters);
}

/** The content type to send a version's envelope with. */
const ct = (version: Version) => (version === '1.1' ? CT11 : CT12);

describe('decodeSoapRequest: versions and envelopes', () => {
  test('decodes a SOAP 1.1 request sent as text/xml', () => {
    const request = decode(envelope('1.1', { body: getBereich('7') }), { contentType: CT11 });
    assert.equal(request.version, '1.1');
    assert.equal(request.operation.name, 'getBereich');
    assert.equal(request.operation.endpoint, PUBLIC_V6);
    assert.deepEqual(params(request), { bereichID: ['7'] });
    assert.equal(request.token, undefined);
  });

  test('decodes a SOAP 1.2 request sent as application/soap+xml', () => {
    const request = decode(envelope('1.2', { body: getBereich('8') }), { contentType: CT12 });
    assert.equal(request.version, '1.2');
    assert.equal(request.operation.name, 'getBereich');
    assert.deepEqual(params(request), { bereichID: ['8'] });
  });

  test('reads the version from the envelope: a SOAP 1.2 envelope sent as text/xml is SOAP 1.2', () => {
    const request = decode(envelope('1.2', { body: getBereich() }), { contentType: CT11 });
    assert.equal(request.version, '1.2');
  });

  test('a SOAP 1.1 envelope sent as application/soap+xml is SOAP_VERSION_MISMATCH', () => {
    refuses(envelope('1.1', { body: getBereich() }), 'SOAP_VERSION_MISMATCH', { contentType: CT12 });
  });

  test('any envelope prefix works', () => {
    for (const version of ['1.1', '1.2'] as const) {
      const ns = version === '1.1' ? SOAP11_ENVELOPE_NS : SOAP12_ENVELOPE_NS;
      const xml = `<e:Envelope xmlns:e="${ns}"><e:Body>${getBereich('3')}</e:Body></e:Envelope>`;
      const request = decode(xml, { contentType: ct(version) });
      assert.equal(request.version, version);
      assert.deepEqual(params(request), { bereichID: ['3'] });
    }
  });

  test('a default-namespace envelope works, with the operation redeclaring the default', () => {
    const xml =
      `<Envelope xmlns="${SOAP12_ENVELOPE_NS}"><Header>${authHeader()}</Header>` +
      `<Body><getBereich xmlns="${NS}"><bereichID>4</bereichID></getBereich></Body></Envelope>`;
    const request = decode(xml);
    assert.equal(request.version, '1.2');
    assert.deepEqual(params(request), { bereichID: ['4'] });
    assert.equal(request.token, TOKEN);
  });

  test('a prefixed operation and prefixed parameters work', () => {
    const body = `<a:getBereich xmlns:a="${NS}"><a:bereichID>5</a:bereichID></a:getBereich>`;
    assert.deepEqual(params(decode(envelope('1.1', { body }), { contentType: CT11 })), { bereichID: ['5'] });
  });

  test('the namespace of the operation may be declared on the Envelope', () => {
    const xml =
      `<s:Envelope xmlns:s="${SOAP11_ENVELOPE_NS}" xmlns:api="${NS}">` +
      '<s:Body><api:getBereich><api:bereichID>6</api:bereichID></api:getBereich></s:Body></s:Envelope>';
    assert.deepEqual(params(decode(xml, { contentType: CT11 })), { bereichID: ['6'] });
  });

  test('comments, whitespace and CDATA inside the envelope are fine', () => {
    const body = `<!-- c --><getBereich xmlns="${NS}">\n  <!-- c -->\n  <bereichID><![CDATA[1]]>2</bereichID>\n</getBereich>`;
    assert.deepEqual(params(decode(envelope('1.1', { body }), { contentType: CT11 })), { bereichID: ['12'] });
  });

  const notSoap: [string, string][] = [
    ['a root that is not an Envelope', `<getBereich xmlns="${NS}"><bereichID>1</bereichID></getBereich>`],
    ['an Envelope in no namespace', `<Envelope><Body>${getBereich()}</Body></Envelope>`],
    [
      'an Envelope in a foreign namespace',
      `<e:Envelope xmlns:e="urn:x"><e:Body>${getBereich()}</e:Body></e:Envelope>`,
    ],
    [
      'an Envelope in the SOAP 1.1 namespace without the trailing slash',
      `<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope"><e:Body/></e:Envelope>`,
    ],
    ['a Body as root', `<e:Body xmlns:e="${SOAP11_ENVELOPE_NS}">${getBereich()}</e:Body>`],
    ['an envelope with another case', `<e:envelope xmlns:e="${SOAP11_ENVELOPE_NS}"><e:Body/></e:envelope>`],
  ];
  for (const [name, xml] of notSoap) {
    test(`${name} is NOT_SOAP`, () => {
      refuses(xml, 'NOT_SOAP', { contentType: CT11 });
      refuses(xml, 'NOT_SOAP', { contentType: CT12 });
    });
  }

  test('NOT_SOAP names the root element', () => {
    const error = refuses('<a xmlns="urn:x"/>', 'NOT_SOAP');
    assert.equal(error.message, 'The root element {urn:x}a is not a SOAP 1.1 or SOAP 1.2 Envelope.');
  });

  test('a Header after the Body is INVALID_ENVELOPE', () => {
    for (const version of ['1.1', '1.2'] as const) {
      const xml = envelope(version, { body: getBereich(), trailer: '<soap:Header/>' });
      const error = refuses(xml, 'INVALID_ENVELOPE', { contentType: ct(version) });
      assert.equal(error.message, 'The SOAP Header must come before the Body.');
    }
  });

  test('two Bodies are INVALID_ENVELOPE', () => {
    for (const version of ['1.1', '1.2'] as const) {
      const xml = envelope(version, {
        body: getBereich(),
        trailer: `<soap:Body>${getBereich()}</soap:Body>`,
      });
      refuses(xml, 'INVALID_ENVELOPE', { contentType: ct(version) });
    }
  });

  test('two Headers are DUPLICATE_HEADER', () => {
    for (const version of ['1.1', '1.2'] as const) {
      const ns = version === '1.1' ? SOAP11_ENVELOPE_NS : SOAP12_ENVELOPE_NS;
      const xml = `<s:Envelope xmlns:s="${ns}"><s:Header/><s:Header/><s:Body>${getBereich()}</s:Body></s:Envelope>`;
      refuses(xml, 'DUPLICATE_HEADER', { contentType: ct(version) });
    }
  });

  test('an Envelope without a Body is INVALID_ENVELOPE', () => {
    const xml = `<s:Envelope xmlns:s="${SOAP12_ENVELOPE_NS}"><s:Header/></s:Envelope>`;
    const error = refuses(xml, 'INVALID_ENVELOPE');
    assert.equal(error.message, 'The SOAP envelope has no Body.');
    refuses(`<s:Envelope xmlns:s="${SOAP11_ENVELOPE_NS}"/>`, 'INVALID_ENVELOPE', { contentType: CT11 });
  });

  test('SOAP 1.2: an element after the Body is INVALID_ENVELOPE (part 1 §5.1)', () => {
    const xml = envelope('1.2', { body: getBereich(), trailer: '<x:Trailer xmlns:x="urn:x"/>' });
    const error = refuses(xml, 'INVALID_ENVELOPE');
    assert.equal(error.message, 'Unexpected element Trailer in the SOAP Envelope.');
  });

  test('SOAP 1.1: elements after the Body are allowed (§4.1.1)', () => {
    const xml = envelope('1.1', {
      body: getBereich('9'),
      trailer: '<x:Trailer xmlns:x="urn:x"/><x:More xmlns:x="urn:x"/>',
    });
    assert.deepEqual(params(decode(xml, { contentType: CT11 })), { bereichID: ['9'] });
  });

  test('an element before the Body is INVALID_ENVELOPE in both versions', () => {
    for (const version of ['1.1', '1.2'] as const) {
      const ns = version === '1.1' ? SOAP11_ENVELOPE_NS : SOAP12_ENVELOPE_NS;
      const xml = `<s:Envelope xmlns:s="${ns}"><x xmlns="urn:x"/><s:Body>${getBereich()}</s:Body></s:Envelope>`;
      refuses(xml, 'INVALID_ENVELOPE', { contentType: ct(version) });
    }
  });

  test('a Body in the other SOAP version’s namespace is not the Body', () => {
    const xml = `<s:Envelope xmlns:s="${SOAP12_ENVELOPE_NS}" xmlns:o="${SOAP11_ENVELOPE_NS}"><o:Body>${getBereich()}</o:Body></s:Envelope>`;
    refuses(xml, 'INVALID_ENVELOPE');
  });

  test('two operation elements in the Body are INVALID_ENVELOPE', () => {
    refuses(envelope('1.2', { body: getBereich() + getBereich() }), 'INVALID_ENVELOPE');
  });
});

describe('decodeSoapRequest: body text', () => {
  test('an empty body is EMPTY_BODY', () => {
    refuses('', 'EMPTY_BODY');
    refuses('', 'EMPTY_BODY', { contentType: CT11 });
  });

  test('a whitespace-only body is EMPTY_BODY', () => {
    refuses(' \r\n\t ', 'EMPTY_BODY');
  });

  test('a body of only a byte order mark is EMPTY_BODY', () => {
    assertScoopError(() => decode(Uint8Array.of(0xef, 0xbb, 0xbf)), 'EMPTY_BODY');
  });

  test('a body with a byte order mark before the envelope is decoded', () => {
    const xml = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(envelope('1.2', { body: getBereich() })),
    ]);
    assert.deepEqual(params(decode(new Uint8Array(xml))), { bereichID: ['1'] });
  });

  test('invalid UTF-8 is INVALID_ENCODING', () => {
    const xml = Buffer.from(envelope('1.2', { body: getBereich('\u00e9') }), 'latin1');
    assertScoopError(() => decode(new Uint8Array(xml)), 'INVALID_ENCODING');
  });

  test('an ISO-8859-1 body is decoded by its charset', () => {
    const xml = Buffer.from(envelope('1.1', { body: getBereich('\u00e9') }), 'latin1');
    const request = decode(new Uint8Array(xml), { contentType: 'text/xml; charset=iso-8859-1' });
    assert.deepEqual(params(request), { bereichID: ['é'] });
  });

  test('an unsupported charset is INVALID_ENCODING', () => {
    refuses(envelope('1.1', { body: getBereich() }), 'INVALID_ENCODING', {
      contentType: 'text/xml; charset=utf-16',
    });
  });

  test('malformed XML is MALFORMED_XML', () => {
    refuses('<soap:Envelope', 'MALFORMED_XML');
    refuses('not xml', 'MALFORMED_XML');
    refuses(envelope('1.2', { body: getBereich() }).slice(0, -5), 'MALFORMED_XML');
  });

  test('a DOCTYPE is DTD_NOT_ALLOWED', () => {
    const xml = `<!DOCTYPE soap:Envelope [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${envelope('1.2', { body: getBereich('&xxe;') }).replace(/^<\?xml[^>]*>/, '')}`;
    refuses(xml, 'DTD_NOT_ALLOWED');
  });

  test('the XML limits are applied', () => {
    const limits: XmlLimits = { ...DEFAULT_XML_LIMITS, maxDepth: 3 };
    refuses(envelope('1.2', { body: getBereich() }), 'XML_LIMIT_EXCEEDED', { limits });
  });

  test('a processing instruction is PROCESSING_INSTRUCTION', () => {
    const inBody = envelope('1.2', { body: `<?pi x?>${getBereich()}` });
    refuses(inBody, 'PROCESSING_INSTRUCTION');
    const beforeRoot = `<?xml version="1.0"?><?xml-stylesheet href="x"?>${envelope('1.1', { body: getBereich() }).replace(/^<\?xml[^>]*>/, '')}`;
    refuses(beforeRoot, 'PROCESSING_INSTRUCTION', { contentType: CT11 });
  });

  test('the XML declaration is not a processing instruction', () => {
    assert.equal(decode(envelope('1.2', { body: getBereich() })).version, '1.2');
  });
});

describe('decodeSoapRequest: operations', () => {
  test('finds each operation at its own endpoint', () => {
    const cases: [Endpoint, string, string][] = [
      [SCOOP_V5, 'checkAnhangVorhanden', '<anhangID>1</anhangID>'],
      [SCOOP_V6, 'getArtikelDetails', '<artikelID>1</artikelID>'],
      [SCOOP_V6, 'getAbonnierteNewsletter', '<email>a@b</email>'],
      [SCOOP_V7, 'getNewsletter', ''],
      [SCOOP_V7, 'getCityAppBereich', '<cityAppBereichID>1</cityAppBereichID>'],
      [PUBLIC_V6, 'getBild', '<bildID>1</bildID>'],
      [PUBLIC_V6, 'getAnhang', '<anhangID>1</anhangID>'],
      [PUBLIC_V6, 'getBereich', '<bereichID>1</bereichID>'],
    ];
    for (const [endpoint, name, content] of cases) {
      const body = `<${name} xmlns="${NS}">${content}</${name}>`;
      const request = decode(envelope('1.2', { header: authHeader(), body }), { endpoint });
      assert.equal(request.operation.name, name);
      assert.equal(request.operation.endpoint, endpoint);
    }
  });

  test('getNewsletter takes an empty element (spec 4.2 rule 3)', () => {
    const request = decode(envelope('1.1', { body: `<getNewsletter xmlns="${NS}" />` }), {
      endpoint: SCOOP_V7,
      contentType: CT11,
    });
    assert.equal(request.operation.name, 'getNewsletter');
    assert.deepEqual(params(request), {});
  });

  test('an operation at the wrong endpoint is UNKNOWN_OPERATION', () => {
    const body = `<getCityAppBereich xmlns="${NS}"><cityAppBereichID>1</cityAppBereichID></getCityAppBereich>`;
    const error = refuses(envelope('1.2', { body }), 'UNKNOWN_OPERATION', { endpoint: PUBLIC_V6 });
    assert.equal(
      error.message,
      `The operation {${NS}}getCityAppBereich is not offered at /scoop/api/v6/public.asmx.`,
    );
    refuses(envelope('1.2', { body: getBereich() }), 'UNKNOWN_OPERATION', { endpoint: SCOOP_V6 });
    // getNewsletter is scoop v7, not v6 (test/wire wrong-version-path cases).
    refuses(envelope('1.2', { body: `<getNewsletter xmlns="${NS}"/>` }), 'UNKNOWN_OPERATION', {
      endpoint: SCOOP_V6,
    });
  });

  test('an operation in a foreign namespace or in no namespace is UNKNOWN_OPERATION', () => {
    refuses(
      envelope('1.2', {
        body: '<getBereich xmlns="http://scoop.example.org/api/"><bereichID>1</bereichID></getBereich>',
      }),
      'UNKNOWN_OPERATION',
    );
    refuses(
      envelope('1.2', { body: '<getBereich><bereichID>1</bereichID></getBereich>' }),
      'UNKNOWN_OPERATION',
    );
    refuses(envelope('1.1', { body: '<getBereich xmlns="urn:other"/>' }), 'UNKNOWN_OPERATION', {
      contentType: CT11,
    });
  });

  test('an unknown operation name, or another case, is UNKNOWN_OPERATION', () => {
    refuses(envelope('1.2', { body: `<getFoo xmlns="${NS}"/>` }), 'UNKNOWN_OPERATION');
    refuses(
      envelope('1.2', { body: `<GetBereich xmlns="${NS}"><bereichID>1</bereichID></GetBereich>` }),
      'UNKNOWN_OPERATION',
    );
  });

  test('an empty Body is UNKNOWN_OPERATION', () => {
    const error = refuses(envelope('1.2', {}), 'UNKNOWN_OPERATION');
    assert.equal(error.message, 'The SOAP Body holds no operation element.');
    refuses(envelope('1.1', { body: ' <!-- nothing --> ' }), 'UNKNOWN_OPERATION', { contentType: CT11 });
  });
});

describe('decodeSoapRequest: parameters', () => {
  test('parameters not sent have no entry, and unknown ones are ignored', () => {
    const body = `<getBereich xmlns="${NS}"><other>1</other></getBereich>`;
    assert.deepEqual(params(decode(envelope('1.2', { body }))), {});
  });

  test('an unqualified or foreign-namespace parameter is ignored', () => {
    const unqualified = `<getBereich xmlns="${NS}"><bereichID xmlns="">1</bereichID></getBereich>`;
    assert.deepEqual(params(decode(envelope('1.2', { body: unqualified }))), {});
    const foreign = `<a:getBereich xmlns:a="${NS}"><bereichID>1</bereichID></a:getBereich>`;
    assert.deepEqual(params(decode(envelope('1.2', { body: foreign }))), {});
  });

  test('keeps parameter text as sent (coerce collapses whitespace)', () => {
    assert.deepEqual(params(decode(envelope('1.2', { body: getBereich(' 1\n') }))), { bereichID: [' 1\n'] });
  });

  test('an empty parameter element is the empty string', () => {
    const body = `<getBereich xmlns="${NS}"><bereichID /></getBereich>`;
    assert.deepEqual(params(decode(envelope('1.2', { body }))), { bereichID: [''] });
  });

  test('a repeated scalar is DUPLICATE_PARAMETER', () => {
    const body = `<getBereich xmlns="${NS}"><bereichID>1</bereichID><bereichID>2</bereichID></getBereich>`;
    refuses(envelope('1.2', { body }), 'DUPLICATE_PARAMETER');
  });

  for (const nil of ['true', '1', ' true ']) {
    test(`xsi:nil="${nil}" counts as missing`, () => {
      const body = `<getBereich xmlns="${NS}"><bereichID xsi:nil="${nil}" /></getBereich>`;
      assert.deepEqual(params(decode(envelope('1.2', { body }))), {});
    });
  }

  test('xsi:nil="false" is an ordinary value', () => {
    const body = `<getBereich xmlns="${NS}"><bereichID xsi:nil="false">3</bereichID></getBereich>`;
    assert.deepEqual(params(decode(envelope('1.2', { body }))), { bereichID: ['3'] });
  });

  test('a nil attribute in another namespace is not xsi:nil', () => {
    const body = `<getBereich xmlns="${NS}" xmlns:x="urn:x"><bereichID x:nil="true">3</bereichID></getBereich>`;
    assert.deepEqual(params(decode(envelope('1.2', { body }))), { bereichID: ['3'] });
  });

  test('a nil occurrence next to a real one, in either order, is DUPLICATE_PARAMETER', () => {
    for (const pair of [
      '<bereichID xsi:nil="true"/><bereichID>4</bereichID>',
      '<bereichID>4</bereichID><bereichID xsi:nil="1"/>',
      '<bereichID xsi:nil="true"/><bereichID xsi:nil="true"/>',
    ]) {
      refuses(
        envelope('1.2', { body: `<getBereich xmlns="${NS}">${pair}</getBereich>` }),
        'DUPLICATE_PARAMETER',
      );
    }
  });

  test('a nil resizeModes next to a real one is DUPLICATE_PARAMETER', () => {
    const modes = '<resizeModes xsi:nil="true"/><resizeModes><resizeMode>fit</resizeMode></resizeModes>';
    const body = `<getBild xmlns="${NS}"><bildID>200</bildID><width>1</width><height>1</height>${modes}</getBild>`;
    refuses(envelope('1.2', { body }), 'DUPLICATE_PARAMETER');
  });

  const bild = (modes: string) =>
    `<getBild xmlns="${NS}"><bildID>200</bildID><width>100</width><height>80</height>${modes}</getBild>`;

  test('reads resizeModes/resizeMode items in order', () => {
    const request = decode(
      envelope('1.1', {
        body: bild(
          '<resizeModes><resizeMode>crop</resizeMode><resizeMode>background</resizeMode></resizeModes>',
        ),
      }),
      { contentType: CT11 },
    );
    assert.deepEqual(params(request), {
      bildID: ['200'],
      width: ['100'],
      height: ['80'],
      resizeModes: ['crop', 'background'],
    });
  });

  test('a missing, empty or nil resizeModes is the empty list', () => {
    for (const modes of ['', '<resizeModes />', '<resizeModes xsi:nil="true"/>']) {
      assert.deepEqual(params(decode(envelope('1.2', { body: bild(modes) }))).resizeModes, [], modes);
    }
  });

  test('only resizeMode items in the service namespace count', () => {
    const modes =
      '<resizeModes><resizeMode>fit</resizeMode><mode>crop</mode><x:resizeMode xmlns:x="urn:x">crop</x:resizeMode>' +
      '<resizeMode xmlns="">crop</resizeMode><resizeMode> stretch </resizeMode></resizeModes>';
    assert.deepEqual(params(decode(envelope('1.2', { body: bild(modes) }))).resizeModes, [
      'fit',
      ' stretch ',
    ]);
  });

  test('an empty resizeMode item is the empty string (refused by coerce)', () => {
    const modes = '<resizeModes><resizeMode /></resizeModes>';
    assert.deepEqual(params(decode(envelope('1.2', { body: bild(modes) }))).resizeModes, ['']);
  });

  test('two resizeModes elements are DUPLICATE_PARAMETER', () => {
    const modes = '<resizeModes><resizeMode>fit</resizeMode></resizeModes><resizeModes />';
    refuses(envelope('1.2', { body: bild(modes) }), 'DUPLICATE_PARAMETER');
  });
});

describe('decodeSoapRequest: wsAuthHeader', () => {
  const cityApp = `<getCityAppBereich xmlns="${NS}"><cityAppBereichID>1</cityAppBereichID></getCityAppBereich>`;

  for (const version of ['1.1', '1.2'] as const) {
    test(`SOAP ${version}: reads the token`, () => {
      const request = decode(envelope(version, { header: authHeader(), body: cityApp }), {
        endpoint: SCOOP_V7,
        contentType: ct(version),
      });
      assert.equal(request.token, TOKEN);
    });
  }

  test('keeps the token text as sent', () => {
    const request = decode(envelope('1.2', { header: authHeader(' {ABC} '), body: cityApp }), {
      endpoint: SCOOP_V7,
    });
    assert.equal(request.token, ' {ABC} ');
  });

  test('no header, or an empty Header, gives undefined', () => {
    assert.equal(decode(envelope('1.2', { body: cityApp }), { endpoint: SCOOP_V7 }).token, undefined);
    assert.equal(
      decode(envelope('1.2', { header: '', body: cityApp }), { endpoint: SCOOP_V7 }).token,
      undefined,
    );
  });

  test('a wsAuthHeader without a token, or with an empty one, gives the empty string', () => {
    const without = `<wsAuthHeader xmlns="${NS}" />`;
    assert.equal(
      decode(envelope('1.2', { header: without, body: cityApp }), { endpoint: SCOOP_V7 }).token,
      '',
    );
    assert.equal(
      decode(envelope('1.2', { header: authHeader(''), body: cityApp }), { endpoint: SCOOP_V7 }).token,
      '',
    );
  });

  test('a wsAuthHeader or token in a foreign namespace is not ours', () => {
    const foreignHeader = `<wsAuthHeader xmlns="urn:x"><token>${TOKEN}</token></wsAuthHeader>`;
    assert.equal(
      decode(envelope('1.2', { header: foreignHeader, body: cityApp }), { endpoint: SCOOP_V7 }).token,
      undefined,
    );
    const foreignToken = `<wsAuthHeader xmlns="${NS}"><token xmlns="urn:x">${TOKEN}</token></wsAuthHeader>`;
    assert.equal(
      decode(envelope('1.2', { header: foreignToken, body: cityApp }), { endpoint: SCOOP_V7 }).token,
      '',
    );
  });

  test('is read at a public endpoint too (the caller ignores it there)', () => {
    assert.equal(decode(envelope('1.2', { header: authHeader(), body: getBereich() })).token, TOKEN);
  });

  test('two wsAuthHeaders are DUPLICATE_HEADER', () => {
    const error = refuses(
      envelope('1.1', { header: authHeader() + authHeader(), body: cityApp }),
      'DUPLICATE_HEADER',
      {
        endpoint: SCOOP_V7,
        contentType: CT11,
      },
    );
    assert.equal(error.message, 'The wsAuthHeader SOAP header was sent more than once.');
  });

  test('two tokens in one wsAuthHeader are DUPLICATE_HEADER', () => {
    const header = `<wsAuthHeader xmlns="${NS}"><token>${TOKEN}</token><token>${TOKEN}</token></wsAuthHeader>`;
    const error = refuses(envelope('1.2', { header, body: cityApp }), 'DUPLICATE_HEADER', {
      endpoint: SCOOP_V7,
    });
    assert.equal(error.message, 'The wsAuthHeader holds more than one token.');
  });

  test('wsAuthHeader with mustUnderstand is understood', () => {
    for (const version of ['1.1', '1.2'] as const) {
      const header = `<wsAuthHeader xmlns="${NS}" soap:mustUnderstand="1"><token>${TOKEN}</token></wsAuthHeader>`;
      const request = decode(envelope(version, { header, body: cityApp }), {
        endpoint: SCOOP_V7,
        contentType: ct(version),
      });
      assert.equal(request.token, TOKEN);
    }
  });
});

describe('decodeSoapRequest: mustUnderstand', () => {
  const unknown = (attributes: string) =>
    `<foo:Unknown xmlns:foo="urn:unknown" ${attributes}>x</foo:Unknown>`;

  function mustUnderstand(version: Version, header: string) {
    const error = refuses(envelope(version, { header, body: getBereich() }), 'MUST_UNDERSTAND', {
      contentType: ct(version),
    });
    return error;
  }

  function accepted(version: Version, header: string): void {
    const request = decode(envelope(version, { header, body: getBereich() }), { contentType: ct(version) });
    assert.equal(request.operation.name, 'getBereich');
  }

  test('SOAP 1.1: mustUnderstand="1" on an unknown header is MUST_UNDERSTAND with its QName', () => {
    const error = mustUnderstand('1.1', unknown('soap:mustUnderstand="1"'));
    assert.deepEqual(error.notUnderstood, [{ uri: 'urn:unknown', local: 'Unknown', prefix: 'foo' }]);
    assert.equal(error.message, 'SOAP header {urn:unknown}Unknown was not understood.');
  });

  test('SOAP 1.1: mustUnderstand="0", absent, or in another namespace is ignored', () => {
    accepted('1.1', unknown('soap:mustUnderstand="0"'));
    accepted('1.1', unknown(''));
    accepted('1.1', unknown('mustUnderstand="1"'));
    accepted('1.1', unknown(`xmlns:s12="${SOAP12_ENVELOPE_NS}" s12:mustUnderstand="1"`));
  });

  for (const value of ['true', ' true ']) {
    test(`SOAP 1.1: mustUnderstand="${value}" is honoured like "1" (clients send it)`, () => {
      const error = mustUnderstand('1.1', unknown(`soap:mustUnderstand="${value}"`));
      assert.deepEqual(error.notUnderstood, [{ uri: 'urn:unknown', local: 'Unknown', prefix: 'foo' }]);
    });
  }

  test('SOAP 1.1: mustUnderstand="false" is ignored like "0"', () => {
    accepted('1.1', unknown('soap:mustUnderstand="false"'));
  });

  test('SOAP 1.1: actor next is targeted, another actor is not', () => {
    mustUnderstand('1.1', unknown(`soap:mustUnderstand="1" soap:actor="${SOAP11_ACTOR_NEXT}"`));
    accepted('1.1', unknown('soap:mustUnderstand="1" soap:actor="http://example.org/other"'));
  });

  for (const value of ['true', '1', ' true ']) {
    test(`SOAP 1.2: mustUnderstand="${value}" is MUST_UNDERSTAND`, () => {
      const error = mustUnderstand('1.2', unknown(`soap:mustUnderstand="${value}"`));
      assert.deepEqual(error.notUnderstood, [{ uri: 'urn:unknown', local: 'Unknown', prefix: 'foo' }]);
    });
  }

  test('SOAP 1.2: mustUnderstand="false" or "0" is ignored', () => {
    accepted('1.2', unknown('soap:mustUnderstand="false"'));
    accepted('1.2', unknown('soap:mustUnderstand="0"'));
  });

  test('SOAP 1.2: role next and ultimateReceiver are targeted; none and others are not', () => {
    mustUnderstand('1.2', unknown(`soap:mustUnderstand="true" soap:role="${SOAP12_ROLE_NEXT}"`));
    mustUnderstand('1.2', unknown(`soap:mustUnderstand="true" soap:role="${SOAP12_ROLE_ULTIMATE_RECEIVER}"`));
    accepted('1.2', unknown(`soap:mustUnderstand="true" soap:role="${SOAP12_ROLE_NONE}"`));
    accepted('1.2', unknown('soap:mustUnderstand="true" soap:role="http://example.org/other"'));
  });

  test('SOAP 1.2: a SOAP 1.1 actor attribute does not target anything', () => {
    const header = unknown(
      `xmlns:s11="${SOAP11_ENVELOPE_NS}" s11:actor="http://example.org/other" soap:mustUnderstand="true"`,
    );
    mustUnderstand('1.2', header);
  });

  test('lists every header not understood, in order, and names the first', () => {
    const header =
      '<a:One xmlns:a="urn:a" soap:mustUnderstand="true"/>' +
      '<b:Two xmlns:b="urn:b" soap:mustUnderstand="false"/>' +
      '<Three xmlns="urn:c" soap:mustUnderstand="1"/>';
    const error = mustUnderstand('1.2', header);
    assert.deepEqual(error.notUnderstood, [
      { uri: 'urn:a', local: 'One', prefix: 'a' },
      { uri: 'urn:c', local: 'Three', prefix: '' },
    ]);
    assert.equal(error.message, 'SOAP header {urn:a}One was not understood.');
  });

  test('is checked before the operation is looked up', () => {
    const xml = envelope('1.2', {
      header: unknown('soap:mustUnderstand="true"'),
      body: `<getFoo xmlns="${NS}"/>`,
    });
    refuses(xml, 'MUST_UNDERSTAND');
  });

  test('unknown headers without mustUnderstand are ignored', () => {
    accepted('1.2', unknown('') + authHeader());
  });
});

describe('decodeSoapRequest: SOAPAction (SOAP 1.1 §6.1.1) and the action parameter', () => {
  const body = getBereich();
  const action = `${NS}/getBereich`;

  function ok(call: Call, version: Version = '1.1'): void {
    assert.equal(decode(envelope(version, { body }), call).operation.name, 'getBereich');
  }

  test('a quoted, matching SOAPAction is accepted', () => {
    ok({ contentType: CT11, soapAction: `"${action}"` });
  });

  test('an unquoted, matching SOAPAction is accepted', () => {
    ok({ contentType: CT11, soapAction: action });
  });

  test('whitespace around and inside the quotes is ignored', () => {
    ok({ contentType: CT11, soapAction: `  " ${action} "  ` });
  });

  test('a missing, empty or "" SOAPAction routes by the body', () => {
    ok({ contentType: CT11 });
    ok({ contentType: CT11, soapAction: '' });
    ok({ contentType: CT11, soapAction: '""' });
    ok({ contentType: CT11, soapAction: '   ' });
  });

  const mismatches = [
    `"${NS}/getAnhang"`,
    `"${NS}/getFoo"`,
    `"http://other.example.org/api/getBereich"`,
    `"${NS}/GetBereich"`,
    `"${NS}getBereich"`,
    `"${NS}/getBereich/"`,
    'getBereich',
  ];
  for (const soapAction of mismatches) {
    test(`SOAPAction ${soapAction} is SOAP_ACTION_MISMATCH`, () => {
      refuses(envelope('1.1', { body }), 'SOAP_ACTION_MISMATCH', { contentType: CT11, soapAction });
    });
  }

  test('the mismatch message names both actions', () => {
    const error = refuses(envelope('1.1', { body }), 'SOAP_ACTION_MISMATCH', {
      contentType: CT11,
      soapAction: `"${NS}/getAnhang"`,
    });
    assert.equal(
      error.message,
      `The SOAP action '${NS}/getAnhang' does not match the operation in the body, getBereich (its action is '${action}').`,
    );
  });

  test('an unknown operation is reported before a SOAPAction mismatch', () => {
    refuses(envelope('1.1', { body: `<getFoo xmlns="${NS}"/>` }), 'UNKNOWN_OPERATION', {
      contentType: CT11,
      soapAction: `"${NS}/getBereich"`,
    });
  });

  test('SOAP 1.2: a matching action parameter is accepted, quoted or not', () => {
    ok({ contentType: `application/soap+xml; charset=utf-8; action="${action}"` }, '1.2');
    ok({ contentType: `application/soap+xml; action=${action}; charset=utf-8` }, '1.2');
  });

  test('SOAP 1.2: a wrong action parameter is SOAP_ACTION_MISMATCH', () => {
    refuses(envelope('1.2', { body }), 'SOAP_ACTION_MISMATCH', {
      contentType: `application/soap+xml; charset=utf-8; action="${NS}/getAnhang"`,
    });
  });

  test('SOAP 1.2: an empty action parameter routes by the body', () => {
    ok({ contentType: 'application/soap+xml; charset=utf-8; action=""' }, '1.2');
  });

  test('SOAP 1.2 as application/soap+xml: the SOAPAction header is ignored', () => {
    ok({ contentType: CT12, soapAction: `"${NS}/getAnhang"` }, '1.2');
  });

  test('SOAP 1.2 as application/soap+xml: the action parameter wins over a SOAPAction header', () => {
    refuses(envelope('1.2', { body }), 'SOAP_ACTION_MISMATCH', {
      contentType: `application/soap+xml; action="${NS}/getAnhang"`,
      soapAction: `"${action}"`,
    });
  });

  test('SOAP 1.2 envelope as text/xml: the SOAPAction header is checked', () => {
    ok({ contentType: CT11, soapAction: `"${action}"` }, '1.2');
    refuses(envelope('1.2', { body }), 'SOAP_ACTION_MISMATCH', {
      contentType: CT11,
      soapAction: `"${NS}/getAnhang"`,
    });
  });

  test('SOAP 1.1: an action parameter on text/xml is ignored', () => {
    ok({ contentType: `text/xml; charset=utf-8; action="${NS}/getAnhang"` });
  });
});

describe('versionByMediaType and isSoapMediaType', () => {
  test('the media type constants', () => {
    assert.equal(SOAP11_MEDIA_TYPE, 'text/xml');
    assert.equal(SOAP12_MEDIA_TYPE, 'application/soap+xml');
  });

  test('application/soap+xml guesses 1.2; everything else, or nothing, 1.1', () => {
    assert.equal(versionByMediaType(parseMediaType('Application/SOAP+XML; charset=utf-8')), '1.2');
    assert.equal(versionByMediaType(parseMediaType('text/xml')), '1.1');
    assert.equal(versionByMediaType(parseMediaType('application/json')), '1.1');
    assert.equal(versionByMediaType(undefined), '1.1');
  });

  test('only text/xml and application/soap+xml are SOAP media types', () => {
    assert.equal(isSoapMediaType(parseMediaType('text/xml; charset=utf-8')), true);
    assert.equal(isSoapMediaType(parseMediaType('application/soap+xml')), true);
    assert.equal(isSoapMediaType(parseMediaType('application/xml')), false);
    assert.equal(isSoapMediaType(parseMediaType('application/x-www-form-urlencoded')), false);
    assert.equal(isSoapMediaType(undefined), false);
  });
});
