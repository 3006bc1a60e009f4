/**
 * The SOAP envelope's shape and its headers: Body, Header, mustUnderstand, SOAPAction.
 */
import { hostileTheme } from '../support/hostile-case.ts';
import {
  AUTH,
  bereich11,
  bereich12,
  envelope,
  NS,
  op,
  PUBLIC,
  post,
  SOAP12_NS,
  soap11,
  soap12,
  TOKEN,
  V5,
  V7,
  VALID11,
  VALID12,
  XML11,
  XML12,
} from '../support/hostile-requests.ts';

const { theme, add } = hostileTheme('SOAP envelope shape and headers');
export const soapEnvelope = theme;

// -- SOAP envelope shape and headers.
add(
  'soap11 root is not an Envelope',
  'soap11',
  'NOT_SOAP',
  soap11(PUBLIC, op('getBereich', '<bereichID>1</bereichID>')),
);
add(
  'soap12 Envelope in a foreign namespace',
  'soap12',
  'NOT_SOAP',
  soap12(
    PUBLIC,
    `<soap:Envelope xmlns:soap="urn:evil"><soap:Body>${op('getBereich', '<bereichID>1</bereichID>')}</soap:Body></soap:Envelope>`,
  ),
);
add(
  'soap11 envelope sent as application/soap+xml',
  'soap11',
  'SOAP_VERSION_MISMATCH',
  soap12(PUBLIC, VALID11),
);
add(
  'soap12 Envelope without a Body',
  'soap12',
  'INVALID_ENVELOPE',
  soap12(PUBLIC, `<soap:Envelope xmlns:soap="${SOAP12_NS}"><soap:Header/></soap:Envelope>`),
);
add(
  'soap12 element after the Body',
  'soap12',
  'INVALID_ENVELOPE',
  soap12(
    PUBLIC,
    `<soap:Envelope xmlns:soap="${SOAP12_NS}"><soap:Body>${op('getBereich', '<bereichID>1</bereichID>')}</soap:Body><x/></soap:Envelope>`,
  ),
);
add(
  'soap12 Header after the Body',
  'soap12',
  'INVALID_ENVELOPE',
  soap12(
    PUBLIC,
    `<soap:Envelope xmlns:soap="${SOAP12_NS}"><soap:Body>${op('getBereich', '<bereichID>1</bereichID>')}</soap:Body><soap:Header/></soap:Envelope>`,
  ),
);
add(
  'soap12 two operations in the Body',
  'soap12',
  'INVALID_ENVELOPE',
  soap12(
    PUBLIC,
    envelope(
      '1.2',
      `${op('getBereich', '<bereichID>1</bereichID>')}${op('getAnhang', '<anhangID>502</anhangID>')}`,
    ),
  ),
);
add(
  'soap11 processing instruction in the Body',
  'soap11',
  'PROCESSING_INSTRUCTION',
  soap11(PUBLIC, bereich11('<?php system("id"); ?><bereichID>1</bereichID>')),
);
add(
  'soap12 mustUnderstand="true" on an unknown header',
  'soap12',
  'MUST_UNDERSTAND',
  soap12(
    PUBLIC,
    bereich12('<bereichID>1</bereichID>', `<x:Evil xmlns:x="urn:evil" soap:mustUnderstand="true"/>`),
  ),
);
add(
  'soap11 mustUnderstand="true" on an unknown header',
  'soap11',
  'MUST_UNDERSTAND',
  soap11(
    PUBLIC,
    bereich11('<bereichID>1</bereichID>', `<x:Evil xmlns:x="urn:evil" soap:mustUnderstand="true"/>`),
  ),
);
add(
  'soap12 two Header elements',
  'soap12',
  'DUPLICATE_HEADER',
  soap12(
    V7,
    `<soap:Envelope xmlns:soap="${SOAP12_NS}"><soap:Header>${AUTH}</soap:Header><soap:Header>${AUTH}</soap:Header><soap:Body>${op('getNewsletter')}</soap:Body></soap:Envelope>`,
  ),
);
add(
  'soap12 two wsAuthHeader blocks',
  'soap12',
  'DUPLICATE_HEADER',
  soap12(V7, envelope('1.2', op('getNewsletter'), `${AUTH}${AUTH}`)),
);
add(
  'soap11 two tokens in one wsAuthHeader',
  'soap11',
  'DUPLICATE_HEADER',
  soap11(
    V5,
    envelope(
      '1.1',
      op('checkAnhangVorhanden', '<anhangID>502</anhangID>'),
      `<wsAuthHeader xmlns="${NS}"><token>${TOKEN}</token><token>${TOKEN}</token></wsAuthHeader>`,
    ),
  ),
);
add(
  'soap11 two Content-Type headers',
  'soap11',
  'DUPLICATE_HEADER',
  soap11(PUBLIC, VALID11, [`Content-Type: ${XML11}`]),
);
add(
  'soap11 SOAPAction naming another operation',
  'soap11',
  'SOAP_ACTION_MISMATCH',
  soap11(PUBLIC, VALID11, [`SOAPAction: "${NS}/getAnhang"`]),
);
add(
  'soap11 SOAPAction with %0d%0a',
  'soap11',
  'SOAP_ACTION_MISMATCH',
  soap11(PUBLIC, VALID11, [`SOAPAction: "${NS}/getBereich%0d%0aSet-Cookie:%20a=b"`]),
);
add(
  'soap12 action parameter naming another operation',
  'soap12',
  'SOAP_ACTION_MISMATCH',
  post(PUBLIC, `${XML12}; action="${NS}/getBild"`, VALID12),
);
