/**
 * XXE, DTDs, XInclude and other ways of making the parser fetch: every URL names the trap
 * listener of test/hostile.test.ts, which must never be contacted.
 */
import { hostileTheme } from '../support/hostile-case.ts';
import {
  AUTH,
  bereich11,
  bereich12,
  bytes,
  envelope,
  FORM,
  get,
  head,
  NS,
  op,
  PUBLIC,
  post,
  SOAP11_NS,
  soap11,
  soap12,
  V6,
  VALID11,
} from '../support/hostile-requests.ts';

const { theme, add } = hostileTheme('XXE, DTDs, XInclude and other ways of making the parser fetch');
export const externalEntities = theme;

// -- XXE, DTDs, XInclude and other ways of making the parser fetch: none may reach the trap.
add('soap11 XXE external entity (http)', 'soap11', 'DTD_NOT_ALLOWED', (c) =>
  soap11(
    PUBLIC,
    envelope(
      '1.1',
      op('getBereich', '<bereichID>&xxe;</bereichID>'),
      undefined,
      `<!DOCTYPE x [<!ENTITY xxe SYSTEM "${c.trap}/entity">]>`,
    ),
  ),
);
add('soap12 XXE external entity (http)', 'soap12', 'DTD_NOT_ALLOWED', (c) =>
  soap12(
    PUBLIC,
    envelope(
      '1.2',
      op('getBereich', '<bereichID>&xxe;</bereichID>'),
      undefined,
      `<!DOCTYPE x [<!ENTITY xxe SYSTEM "${c.trap}/entity">]>`,
    ),
  ),
);
add('soap11 XXE parameter entity', 'soap11', 'DTD_NOT_ALLOWED', (c) =>
  soap11(
    PUBLIC,
    envelope(
      '1.1',
      op('getBereich', '<bereichID>1</bereichID>'),
      undefined,
      `<!DOCTYPE x [<!ENTITY % p SYSTEM "${c.trap}/param"> %p;]>`,
    ),
  ),
);
add('soap12 external DTD (SYSTEM)', 'soap12', 'DTD_NOT_ALLOWED', (c) =>
  soap12(
    PUBLIC,
    envelope(
      '1.2',
      op('getBereich', '<bereichID>1</bereichID>'),
      undefined,
      `<!DOCTYPE soap:Envelope SYSTEM "${c.trap}/system.dtd">`,
    ),
  ),
);
add('soap11 external DTD (PUBLIC)', 'soap11', 'DTD_NOT_ALLOWED', (c) =>
  soap11(
    PUBLIC,
    envelope(
      '1.1',
      op('getBereich', '<bereichID>1</bereichID>'),
      undefined,
      `<!DOCTYPE soap:Envelope PUBLIC "-//EVIL//DTD X//EN" "${c.trap}/public.dtd">`,
    ),
  ),
);
add(
  'soap12 XXE file:///etc/passwd',
  'soap12',
  'DTD_NOT_ALLOWED',
  soap12(
    V6,
    envelope(
      '1.2',
      op('getAbonnierteNewsletter', '<email>&f;</email>'),
      AUTH,
      '<!DOCTYPE x [<!ENTITY f SYSTEM "file:///etc/passwd">]>',
    ),
  ),
);
add('soap11 DOCTYPE after a comment', 'soap11', 'DTD_NOT_ALLOWED', (c) =>
  soap11(
    PUBLIC,
    envelope(
      '1.1',
      op('getBereich', '<bereichID>1</bereichID>'),
      undefined,
      `<!-- hi --><!DOCTYPE x SYSTEM "${c.trap}/after-comment">`,
    ),
  ),
);
add('soap12 DOCTYPE inside the Body', 'soap12', 'DTD_NOT_ALLOWED', (c) =>
  soap12(PUBLIC, bereich12(`<!DOCTYPE x SYSTEM "${c.trap}/inner"><bereichID>1</bereichID>`)),
);
add('soap11 DOCTYPE in an ISO-8859-1 body', 'soap11', 'DTD_NOT_ALLOWED', (c) =>
  post(
    PUBLIC,
    'text/xml; charset=iso-8859-1',
    Buffer.from(
      envelope(
        '1.1',
        op('getBereich', '<bereichID>1</bereichID>'),
        undefined,
        `<!DOCTYPE x SYSTEM "${c.trap}/latin1">`,
      ),
      'latin1',
    ),
  ),
);
add('soap11 DOCTYPE in a UTF-16 body (BOM)', 'soap11', 'INVALID_ENCODING', (c) =>
  soap11(
    PUBLIC,
    Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`<!DOCTYPE x SYSTEM "${c.trap}/utf16">${VALID11}`, 'utf16le'),
    ]),
  ),
);
add('soap12 XXE via jar: and gopher: URLs', 'soap12', 'DTD_NOT_ALLOWED', (c) =>
  soap12(
    PUBLIC,
    envelope(
      '1.2',
      op('getBereich', '<bereichID>&a;&b;</bereichID>'),
      undefined,
      `<!DOCTYPE x [<!ENTITY a SYSTEM "jar:${c.trap}/x.jar!/a"><!ENTITY b SYSTEM "gopher://${c.trapHost}/_b">]>`,
    ),
  ),
);
add(
  'soap11 entity reference without any DTD',
  'soap11',
  'MALFORMED_XML',
  soap11(PUBLIC, bereich11('<bereichID>&xxe;</bereichID>')),
);
add('soap12 XInclude as the parameter content', 'soap12', 'INVALID_PARAMETER', (c) =>
  soap12(
    PUBLIC,
    bereich12(
      `<bereichID><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${c.trap}/xi" parse="text"/></bereichID>`,
    ),
  ),
);
add('soap11 XInclude instead of the parameter', 'soap11', 'MISSING_PARAMETER', (c) =>
  soap11(
    PUBLIC,
    bereich11(`<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${c.trap}/xi-param"/>`),
  ),
);
add('soap12 XInclude beside the parameter is ignored', 'soap12', 'ok', (c) =>
  soap12(
    PUBLIC,
    bereich12(
      `<bereichID>1</bereichID><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${c.trap}/xi-extra"/>`,
    ),
  ),
);
add('soap11 XInclude as a header block is ignored', 'soap11', 'ok', (c) =>
  soap11(
    PUBLIC,
    bereich11(
      '<bereichID>1</bereichID>',
      `<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${c.trap}/xi-header"/>`,
    ),
  ),
);
add('soap11 XInclude as an Envelope child', 'soap11', 'INVALID_ENVELOPE', (c) =>
  soap11(
    PUBLIC,
    `<soap:Envelope xmlns:soap="${SOAP11_NS}"><xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${c.trap}/xi-env"/><soap:Body>${op('getBereich', '<bereichID>1</bereichID>')}</soap:Body></soap:Envelope>`,
  ),
);
add('soap12 xsi:schemaLocation is not fetched', 'soap12', 'ok', (c) =>
  soap12(
    PUBLIC,
    envelope(
      '1.2',
      op('getBereich', '<bereichID>1</bereichID>', ` xsi:schemaLocation="${NS} ${c.trap}/schema.xsd"`),
    ),
  ),
);
add('soap11 xsi:noNamespaceSchemaLocation and xml:base are not fetched', 'soap11', 'ok', (c) =>
  soap11(
    PUBLIC,
    envelope(
      '1.1',
      op(
        'getBereich',
        '<bereichID>1</bereichID>',
        ` xml:base="${c.trap}/" xsi:noNamespaceSchemaLocation="${c.trap}/n.xsd"`,
      ),
    ),
  ),
);
add('soap12 xml-stylesheet processing instruction', 'soap12', 'PROCESSING_INSTRUCTION', (c) =>
  soap12(
    PUBLIC,
    envelope(
      '1.2',
      op('getBereich', '<bereichID>1</bereichID>'),
      undefined,
      `<?xml-stylesheet type="text/xsl" href="${c.trap}/x.xsl"?>`,
    ),
  ),
);
add('httppost DOCTYPE as a form value is only a string', 'httppost', 'INVALID_PARAMETER', (c) =>
  post(
    `${PUBLIC}/getBereich`,
    FORM,
    `bereichID=${encodeURIComponent(`<!DOCTYPE x [<!ENTITY e SYSTEM "${c.trap}/form">]>&e;`)}`,
  ),
);
add('http absolute-form target naming the trap', 'http', 'NOT_FOUND', (c) =>
  get(`${c.trap}/scoop/api/v6/public.asmx/getBereich?bereichID=1`),
);
add('http WSDL with a Host naming the trap is only text', 'http', 'ok', (c) =>
  bytes(head(`GET ${PUBLIC}?wsdl HTTP/1.1`, [`Host: ${c.trapHost}`, 'Connection: close'])),
);
