import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertWellFormed } from '../../test/support/assertions.ts';
import { ERRORS, type ErrorCode, ScoopError } from '../contract/errors.ts';
import { attributeValue, childElements, parseXml, type XmlElement } from '../xml/reader.ts';
import { renderHttpError, renderSoapFault } from './faults.ts';
import { SOAP11_ENVELOPE_NS, SOAP12_ENVELOPE_NS, XSD_NS, XSI_NS } from './namespaces.ts';

const NS = 'http://scoop.example.org/api';
const ALL_CODES = Object.keys(ERRORS) as ErrorCode[];
const DECL = '<?xml version="1.0" encoding="utf-8"?>';
const ENV11 = `<soap:Envelope xmlns:soap="${SOAP11_ENVELOPE_NS}" xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}">`;
const ENV12 = `<soap:Envelope xmlns:soap="${SOAP12_ENVELOPE_NS}" xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}">`;
const UPGRADE =
  `<soap:Header><soap12:Upgrade xmlns:soap12="${SOAP12_ENVELOPE_NS}">` +
  '<soap12:SupportedEnvelope qname="soap12:Envelope" />' +
  `<soap12:SupportedEnvelope qname="soap11:Envelope" xmlns:soap11="${SOAP11_ENVELOPE_NS}" />` +
  '</soap12:Upgrade></soap:Header>';

/** Parses a rendered body with the project's reader after checking it with saxes. */
function parse(body: Buffer): XmlElement {
  const text = body.toString('utf8');
  assertWellFormed(text);
  return parseXml(text).root;
}

function only(parent: XmlElement, uri: string, local: string): XmlElement {
  const found = childElements(parent, uri, local);
  assert.equal(found.length, 1, `one ${local} in ${parent.local}`);
  return found[0]!;
}

/** Resolves a QName-valued attribute against the declarations in scope (XML Namespaces §6). */
function resolveQName(element: XmlElement, qname: string): { uri: string; local: string } {
  const colon = qname.indexOf(':');
  const prefix = colon < 0 ? '' : qname.slice(0, colon);
  const local = colon < 0 ? qname : qname.slice(colon + 1);
  return { uri: element.namespaces[prefix] ?? '', local };
}

function expectedKind(code: ErrorCode): string {
  if (code === 'MUST_UNDERSTAND') return 'MustUnderstand';
  if (code === 'NOT_SOAP' || code === 'SOAP_VERSION_MISMATCH') return 'VersionMismatch';
  return ERRORS[code].side === 'client' ? 'Client' : 'Server';
}

const SOAP12_KIND: Record<string, string> = {
  Client: 'Sender',
  Server: 'Receiver',
  MustUnderstand: 'MustUnderstand',
  VersionMismatch: 'VersionMismatch',
};

describe('renderSoapFault: SOAP 1.1', () => {
  test('a client fault, byte for byte', () => {
    const rendered = renderSoapFault(new ScoopError('UNKNOWN_ID', 'Unknown bereichID: 999'), '1.1', NS);
    assert.equal(rendered.status, 500);
    assert.equal(rendered.contentType, 'text/xml; charset=utf-8');
    assert.deepEqual(rendered.headers, {});
    assert.equal(
      rendered.body.toString('utf8'),
      `${DECL}${ENV11}<soap:Body><soap:Fault><faultcode>soap:Client</faultcode>` +
        '<faultstring>Unknown bereichID: 999</faultstring>' +
        `<detail><errorCode xmlns="${NS}">UNKNOWN_ID</errorCode></detail>` +
        '</soap:Fault></soap:Body></soap:Envelope>',
    );
  });

  test('a server fault is soap:Server', () => {
    const root = parse(renderSoapFault(new ScoopError('INTERNAL', 'x'), '1.1', NS).body);
    const fault = only(only(root, SOAP11_ENVELOPE_NS, 'Body'), SOAP11_ENVELOPE_NS, 'Fault');
    assert.equal(only(fault, '', 'faultcode').text, 'soap:Server');
  });

  test('faultcode and faultstring are unqualified; the faultcode prefix resolves to the envelope', () => {
    const root = parse(renderSoapFault(new ScoopError('MISSING_PARAMETER', 'm'), '1.1', NS).body);
    const fault = only(only(root, SOAP11_ENVELOPE_NS, 'Body'), SOAP11_ENVELOPE_NS, 'Fault');
    const faultcode = only(fault, '', 'faultcode');
    assert.deepEqual(resolveQName(faultcode, faultcode.text), { uri: SOAP11_ENVELOPE_NS, local: 'Client' });
    assert.equal(only(fault, '', 'faultstring').text, 'm');
    assert.equal(only(only(fault, '', 'detail'), NS, 'errorCode').text, 'MISSING_PARAMETER');
  });

  test('MustUnderstand: soap:MustUnderstand, no detail, no header', () => {
    const error = new ScoopError('MUST_UNDERSTAND', 'SOAP header {urn:x}H was not understood.', {
      notUnderstood: [{ uri: 'urn:x', local: 'H', prefix: 'x' }],
    });
    const rendered = renderSoapFault(error, '1.1', NS);
    assert.equal(rendered.status, 500);
    assert.equal(
      rendered.body.toString('utf8'),
      `${DECL}${ENV11}<soap:Body><soap:Fault><faultcode>soap:MustUnderstand</faultcode>` +
        '<faultstring>SOAP header {urn:x}H was not understood.</faultstring>' +
        '</soap:Fault></soap:Body></soap:Envelope>',
    );
  });

  test('NOT_SOAP: soap:VersionMismatch with the Upgrade header', () => {
    const rendered = renderSoapFault(new ScoopError('NOT_SOAP', 'not an envelope'), '1.1', NS);
    assert.equal(rendered.contentType, 'text/xml; charset=utf-8');
    assert.equal(
      rendered.body.toString('utf8'),
      `${DECL}${ENV11}${UPGRADE}<soap:Body><soap:Fault><faultcode>soap:VersionMismatch</faultcode>` +
        '<faultstring>not an envelope</faultstring>' +
        `<detail><errorCode xmlns="${NS}">NOT_SOAP</errorCode></detail>` +
        '</soap:Fault></soap:Body></soap:Envelope>',
    );
  });

  test('the Upgrade header lists both envelopes by resolvable QName (SOAP 1.2 part 1 §5.4.7)', () => {
    const root = parse(renderSoapFault(new ScoopError('NOT_SOAP', 'x'), '1.1', NS).body);
    const upgrade = only(only(root, SOAP11_ENVELOPE_NS, 'Header'), SOAP12_ENVELOPE_NS, 'Upgrade');
    const supported = childElements(upgrade, SOAP12_ENVELOPE_NS, 'SupportedEnvelope').map((e) =>
      resolveQName(e, attributeValue(e, '', 'qname')!),
    );
    assert.deepEqual(supported, [
      { uri: SOAP12_ENVELOPE_NS, local: 'Envelope' },
      { uri: SOAP11_ENVELOPE_NS, local: 'Envelope' },
    ]);
  });
});

describe('renderSoapFault: SOAP 1.2', () => {
  test('a client fault, byte for byte', () => {
    const rendered = renderSoapFault(new ScoopError('UNKNOWN_ID', 'Unknown bereichID: 999'), '1.2', NS);
    assert.equal(rendered.status, 500);
    assert.equal(rendered.contentType, 'application/soap+xml; charset=utf-8');
    assert.deepEqual(rendered.headers, {});
    assert.equal(
      rendered.body.toString('utf8'),
      `${DECL}${ENV12}<soap:Body><soap:Fault>` +
        '<soap:Code><soap:Value>soap:Sender</soap:Value></soap:Code>' +
        '<soap:Reason><soap:Text xml:lang="en">Unknown bereichID: 999</soap:Text></soap:Reason>' +
        `<soap:Detail><errorCode xmlns="${NS}">UNKNOWN_ID</errorCode></soap:Detail>` +
        '</soap:Fault></soap:Body></soap:Envelope>',
    );
  });

  test('the Reason text carries xml:lang="en"', () => {
    const root = parse(renderSoapFault(new ScoopError('INTERNAL', 'x'), '1.2', NS).body);
    const fault = only(only(root, SOAP12_ENVELOPE_NS, 'Body'), SOAP12_ENVELOPE_NS, 'Fault');
    const text = only(only(fault, SOAP12_ENVELOPE_NS, 'Reason'), SOAP12_ENVELOPE_NS, 'Text');
    assert.equal(attributeValue(text, 'http://www.w3.org/XML/1998/namespace', 'lang'), 'en');
    const value = only(only(fault, SOAP12_ENVELOPE_NS, 'Code'), SOAP12_ENVELOPE_NS, 'Value');
    assert.deepEqual(resolveQName(value, value.text), { uri: SOAP12_ENVELOPE_NS, local: 'Receiver' });
  });

  test('MustUnderstand: a NotUnderstood header block per header, and no Detail (part 1 §5.4.8)', () => {
    const error = new ScoopError('MUST_UNDERSTAND', 'SOAP header {urn:unknown}Unknown was not understood.', {
      notUnderstood: [
        { uri: 'urn:unknown', local: 'Unknown', prefix: 'foo' },
        { uri: 'urn:b', local: 'Two', prefix: '' },
      ],
    });
    const rendered = renderSoapFault(error, '1.2', NS);
    assert.equal(rendered.contentType, 'application/soap+xml; charset=utf-8');
    assert.equal(
      rendered.body.toString('utf8'),
      `${DECL}${ENV12}<soap:Header>` +
        '<soap:NotUnderstood qname="h0:Unknown" xmlns:h0="urn:unknown" />' +
        '<soap:NotUnderstood qname="h1:Two" xmlns:h1="urn:b" />' +
        '</soap:Header><soap:Body><soap:Fault>' +
        '<soap:Code><soap:Value>soap:MustUnderstand</soap:Value></soap:Code>' +
        '<soap:Reason><soap:Text xml:lang="en">SOAP header {urn:unknown}Unknown was not understood.</soap:Text></soap:Reason>' +
        '</soap:Fault></soap:Body></soap:Envelope>',
    );
  });

  test('MustUnderstand: each NotUnderstood qname resolves to the header that was not understood', () => {
    const notUnderstood = [
      { uri: 'urn:a', local: 'One', prefix: 'a' },
      { uri: 'urn:a&b"c', local: 'Two', prefix: 'p' },
      { uri: '', local: 'Unqualified', prefix: '' },
    ];
    const rendered = renderSoapFault(new ScoopError('MUST_UNDERSTAND', 'm', { notUnderstood }), '1.2', NS);
    const root = parse(rendered.body);
    const blocks = childElements(
      only(root, SOAP12_ENVELOPE_NS, 'Header'),
      SOAP12_ENVELOPE_NS,
      'NotUnderstood',
    );
    assert.deepEqual(
      blocks.map((b) => resolveQName(b, attributeValue(b, '', 'qname')!)),
      notUnderstood.map(({ uri, local }) => ({ uri, local })),
    );
  });

  test('SOAP_VERSION_MISMATCH is answered as SOAP 1.1, text/xml, with the Upgrade header', () => {
    const rendered = renderSoapFault(
      new ScoopError('SOAP_VERSION_MISMATCH', 'send it as text/xml'),
      '1.2',
      NS,
    );
    assert.equal(rendered.status, 500);
    assert.equal(rendered.contentType, 'text/xml; charset=utf-8');
    assert.equal(
      rendered.body.toString('utf8'),
      `${DECL}${ENV11}${UPGRADE}<soap:Body><soap:Fault><faultcode>soap:VersionMismatch</faultcode>` +
        '<faultstring>send it as text/xml</faultstring>' +
        `<detail><errorCode xmlns="${NS}">SOAP_VERSION_MISMATCH</errorCode></detail>` +
        '</soap:Fault></soap:Body></soap:Envelope>',
    );
  });

  test('NOT_SOAP guessed as 1.2 is a SOAP 1.2 VersionMismatch with the Upgrade header', () => {
    const rendered = renderSoapFault(new ScoopError('NOT_SOAP', 'x'), '1.2', NS);
    assert.equal(rendered.contentType, 'application/soap+xml; charset=utf-8');
    const text = rendered.body.toString('utf8');
    assert.ok(text.startsWith(`${DECL}${ENV12}${UPGRADE}<soap:Body>`), text);
    assert.ok(text.includes('<soap:Value>soap:VersionMismatch</soap:Value>'), text);
  });
});

describe('renderSoapFault: every catalogue code', () => {
  for (const code of ALL_CODES) {
    test(`${code}: well-formed, status 500, the right fault code in both versions`, () => {
      const kind = expectedKind(code);
      const notUnderstood = code === 'MUST_UNDERSTAND' ? [{ uri: 'urn:x', local: 'H', prefix: 'x' }] : [];
      const error = new ScoopError(code, `message for ${code}`, { notUnderstood });

      const v11 = renderSoapFault(error, '1.1', NS);
      assert.equal(v11.status, 500);
      assert.equal(v11.contentType, 'text/xml; charset=utf-8');
      const fault11 = only(only(parse(v11.body), SOAP11_ENVELOPE_NS, 'Body'), SOAP11_ENVELOPE_NS, 'Fault');
      assert.equal(only(fault11, '', 'faultcode').text, `soap:${kind}`);
      assert.equal(only(fault11, '', 'faultstring').text, `message for ${code}`);
      const detail11 = childElements(fault11, '', 'detail');
      if (kind === 'MustUnderstand') assert.equal(detail11.length, 0);
      else assert.equal(only(detail11[0]!, NS, 'errorCode').text, code);

      const v12 = renderSoapFault(error, '1.2', NS);
      assert.equal(v12.status, 500);
      const answeredAs = code === 'SOAP_VERSION_MISMATCH' ? SOAP11_ENVELOPE_NS : SOAP12_ENVELOPE_NS;
      const root12 = parse(v12.body);
      assert.equal(root12.uri, answeredAs);
      if (answeredAs === SOAP12_ENVELOPE_NS) {
        assert.equal(v12.contentType, 'application/soap+xml; charset=utf-8');
        const fault12 = only(only(root12, SOAP12_ENVELOPE_NS, 'Body'), SOAP12_ENVELOPE_NS, 'Fault');
        const value = only(only(fault12, SOAP12_ENVELOPE_NS, 'Code'), SOAP12_ENVELOPE_NS, 'Value');
        assert.equal(value.text, `soap:${SOAP12_KIND[kind]}`);
        const detail12 = childElements(fault12, SOAP12_ENVELOPE_NS, 'Detail');
        if (kind === 'MustUnderstand') assert.equal(detail12.length, 0);
        else assert.equal(only(detail12[0]!, NS, 'errorCode').text, code);
      } else {
        assert.equal(v12.contentType, 'text/xml; charset=utf-8');
      }
    });
  }
});

describe('renderSoapFault: message text', () => {
  test('escapes the message and reads back as sent', () => {
    const message = `Rathaus & <Verwaltung> "quoted" 'single' ]]> ü 😀`;
    for (const version of ['1.1', '1.2'] as const) {
      const rendered = renderSoapFault(new ScoopError('INVALID_PARAMETER', message), version, NS);
      const text = rendered.body.toString('utf8');
      assert.ok(text.includes(`Rathaus &amp; &lt;Verwaltung&gt; "quoted" 'single' ]]&gt; ü 😀`), text);
      const root = parse(rendered.body);
      const ns = version === '1.1' ? SOAP11_ENVELOPE_NS : SOAP12_ENVELOPE_NS;
      const fault = only(only(root, ns, 'Body'), ns, 'Fault');
      const reason =
        version === '1.1' ? only(fault, '', 'faultstring') : only(only(fault, ns, 'Reason'), ns, 'Text');
      assert.equal(reason.text, message);
    }
  });

  test('a forbidden character in the message cannot break the fault', () => {
    const rendered = renderSoapFault(new ScoopError('INVALID_PARAMETER', 'bad \u0001 \uFFFF'), '1.1', NS);
    const fault = only(only(parse(rendered.body), SOAP11_ENVELOPE_NS, 'Body'), SOAP11_ENVELOPE_NS, 'Fault');
    assert.equal(only(fault, '', 'faultstring').text, 'bad \uFFFD \uFFFD');
  });

  test('never contains a stack trace', () => {
    const error = new ScoopError('INTERNAL', 'An unexpected error on the server.');
    assert.ok(error.stack?.includes('    at '));
    for (const version of ['1.1', '1.2'] as const) {
      const text = renderSoapFault(error, version, NS).body.toString('utf8');
      assert.equal(text.includes('    at '), false);
      assert.equal(text.includes('ScoopError'), false);
      assert.equal(text.includes('.ts:'), false);
    }
  });
});

describe('renderHttpError', () => {
  test('a small XML body, byte for byte', () => {
    const rendered = renderHttpError(new ScoopError('UNKNOWN_ID', 'Unknown bereichID: 999'), NS);
    assert.equal(rendered.status, 404);
    assert.equal(rendered.contentType, 'text/xml; charset=utf-8');
    assert.deepEqual(rendered.headers, {});
    assert.equal(
      rendered.body.toString('utf8'),
      `${DECL}\n<error xmlns="${NS}">\n  <code>UNKNOWN_ID</code>\n  <message>Unknown bereichID: 999</message>\n</error>`,
    );
  });

  for (const code of ALL_CODES) {
    test(`${code}: status ${ERRORS[code].status} from the catalogue, well-formed`, () => {
      const rendered = renderHttpError(new ScoopError(code, `message <${code}> & more`), NS);
      assert.equal(rendered.status, ERRORS[code].status);
      assert.equal(rendered.contentType, 'text/xml; charset=utf-8');
      const root = parse(rendered.body);
      assert.deepEqual([root.uri, root.local], [NS, 'error']);
      assert.equal(only(root, NS, 'code').text, code);
      assert.equal(only(root, NS, 'message').text, `message <${code}> & more`);
      if (code === 'AUTH_FAILED')
        assert.deepEqual(rendered.headers, { 'www-authenticate': 'Bearer realm="scoop"' });
      else assert.deepEqual(rendered.headers, {});
    });
  }

  test('never contains a stack trace', () => {
    const error = new ScoopError('INTERNAL', 'An unexpected error on the server; the log has details.');
    const text = renderHttpError(error, NS).body.toString('utf8');
    assert.equal(text.includes('    at '), false);
    assert.equal(text.includes(error.stack!), false);
  });

  test('a forbidden character in the message cannot break the body', () => {
    const root = parse(renderHttpError(new ScoopError('BAD_REQUEST', 'x\u0008y'), NS).body);
    assert.equal(only(root, NS, 'message').text, 'x\uFFFDy');
  });
});
