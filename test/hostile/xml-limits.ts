/**
 * Entity expansion bombs and the reader's structural limits: depth, element count,
 * attributes, names, text.
 */
import { hostileTheme } from '../support/hostile-case.ts';
import {
  AUTH,
  bereich11,
  bereich12,
  envelope,
  MIB,
  op,
  PUBLIC,
  SOAP11_NS,
  soap11,
  soap12,
  V6,
} from '../support/hostile-requests.ts';

const { theme, add } = hostileTheme('entity bombs and structural limits');
export const xmlLimits = theme;

function nested(depth: number, leaf = ''): string {
  return `${'<a>'.repeat(depth)}${leaf}${'</a>'.repeat(depth)}`;
}

function attributes(count: number, prefix = 'a'): string {
  let out = '';
  for (let i = 0; i < count; i++) out += ` ${prefix}${i}="${i}"`;
  return out;
}

const BILLION_LAUGHS =
  '<!DOCTYPE lolz [<!ENTITY lol "lol">' +
  '<!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
  '<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">' +
  '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">' +
  '<!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">' +
  '<!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">' +
  '<!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">' +
  '<!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">' +
  '<!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">' +
  '<!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]>';

/** The namespace-scope bomb: 28 levels × 64 declarations over 9,800 leaves (fixed in xml/reader.ts). */
function namespaceBomb(): string {
  let open = '';
  let close = '';
  for (let depth = 0; depth < 28; depth++) {
    let declarations = '';
    for (let i = 0; i < 64; i++) declarations += ` xmlns:p${depth}x${i}="urn:${depth}:${i}"`;
    open += `<e${declarations}>`;
    close = `</e>${close}`;
  }
  return `${open}${'<leaf/>'.repeat(9_800)}${close}`;
}

/** The envelope of issue 14: within every other limit, 0.8 s of CPU before the cap on attributes per document. */
function attributeFlood(): string {
  let names = '';
  for (let i = 0; i < 62; i++) names += ` n:a${i}=""`;
  return `<h xmlns="urn:h">${`<x xmlns:n="urn:n"${names}/>`.repeat(6_650)}</h>`;
}

// -- entity expansion bombs.
add(
  'soap11 billion laughs',
  'soap11',
  'DTD_NOT_ALLOWED',
  soap11(
    PUBLIC,
    envelope('1.1', op('getBereich', '<bereichID>&lol9;</bereichID>'), undefined, BILLION_LAUGHS),
  ),
);
add(
  'soap12 billion laughs',
  'soap12',
  'DTD_NOT_ALLOWED',
  soap12(
    PUBLIC,
    envelope('1.2', op('getBereich', '<bereichID>&lol9;</bereichID>'), undefined, BILLION_LAUGHS),
  ),
);
add(
  'soap11 quadratic blowup (one big entity, many references)',
  'soap11',
  'DTD_NOT_ALLOWED',
  soap11(
    PUBLIC,
    envelope(
      '1.1',
      op('getBereich', `<bereichID>${'&big;'.repeat(20_000)}</bereichID>`),
      undefined,
      `<!DOCTYPE x [<!ENTITY big "${'x'.repeat(50_000)}">]>`,
    ),
  ),
);
add(
  'soap12 laughs referenced without a DTD',
  'soap12',
  'MALFORMED_XML',
  soap12(PUBLIC, bereich12('<bereichID>&lol9;</bereichID>')),
);
add(
  'soap11 200,000 predefined entities in a parameter',
  'soap11',
  'INVALID_PARAMETER',
  soap11(PUBLIC, bereich11(`<bereichID>${'&amp;'.repeat(200_000)}</bereichID>`)),
);
add(
  'soap12 100,000 character references make a huge number',
  'soap12',
  'INVALID_PARAMETER',
  soap12(PUBLIC, bereich12(`<bereichID>${'&#x31;'.repeat(100_000)}</bereichID>`)),
);

// -- structural limits: depth, element count, attributes, names, text.
add(
  'soap11 nesting 33 deep inside a parameter',
  'soap11',
  'XML_LIMIT_EXCEEDED',
  soap11(PUBLIC, bereich11(`<bereichID>${nested(30, '1')}</bereichID>`)),
);
add('soap12 nesting 10,000 deep', 'soap12', 'XML_LIMIT_EXCEEDED', soap12(PUBLIC, bereich12(nested(10_000))));
add(
  'soap11 nesting 1,000,000 deep, unclosed',
  'soap11',
  'XML_LIMIT_EXCEEDED',
  soap11(PUBLIC, `<soap:Envelope xmlns:soap="${SOAP11_NS}"><soap:Body>${'<a>'.repeat(1_000_000)}`),
);
add(
  'soap11 deep nesting in a header block',
  'soap11',
  'XML_LIMIT_EXCEEDED',
  soap11(PUBLIC, bereich11('<bereichID>1</bereichID>', `<h xmlns="urn:h">${nested(40)}</h>`)),
);
add(
  'soap12 10,001 elements',
  'soap12',
  'XML_LIMIT_EXCEEDED',
  soap12(PUBLIC, bereich12('<bereichID>1</bereichID>', `<h xmlns="urn:h">${'<x/>'.repeat(10_001)}</h>`)),
);
add(
  'soap11 65 attributes on the operation',
  'soap11',
  'XML_LIMIT_EXCEEDED',
  soap11(PUBLIC, envelope('1.1', op('getBereich', '<bereichID>1</bereichID>', attributes(65)))),
);
add(
  'soap12 100,000 attributes on one element',
  'soap12',
  'XML_LIMIT_EXCEEDED',
  soap12(PUBLIC, envelope('1.2', op('getBereich', '<bereichID>1</bereichID>', attributes(100_000)))),
);
add(
  'soap11 65 namespace declarations on the Envelope',
  'soap11',
  'XML_LIMIT_EXCEEDED',
  soap11(
    PUBLIC,
    `<soap:Envelope xmlns:soap="${SOAP11_NS}"${attributes(64, 'xmlns:n').replace(/="(\d+)"/g, '="urn:$1"')}><soap:Body>${op('getBereich', '<bereichID>1</bereichID>')}</soap:Body></soap:Envelope>`,
  ),
);
add(
  'soap12 attribute value over 1 MiB',
  'soap12',
  'XML_LIMIT_EXCEEDED',
  soap12(
    PUBLIC,
    envelope('1.2', op('getBereich', '<bereichID>1</bereichID>', ` a="${'v'.repeat(MIB + 1)}"`)),
  ),
);
add(
  'soap11 attribute value of 64 KiB + 1 (Apache CXF stops at 64 KiB)',
  'soap11',
  'XML_LIMIT_EXCEEDED',
  soap11(PUBLIC, envelope('1.1', op('getBereich', '<bereichID>1</bereichID>', ` a="${'v'.repeat(65_537)}"`))),
);
add(
  'soap12 more than 2,048 attributes in the document, each element under its limit',
  'soap12',
  'XML_LIMIT_EXCEEDED',
  soap12(
    PUBLIC,
    bereich12('<bereichID>1</bereichID>', `<h xmlns="urn:h">${`<x${attributes(32)}/>`.repeat(64)}</h>`),
  ),
);
add(
  'soap11 6,650 header elements × 63 namespaced attributes is refused quickly',
  'soap11',
  'XML_LIMIT_EXCEEDED',
  soap11(PUBLIC, bereich11('<bereichID>1</bereichID>', attributeFlood())),
  3_000,
);
add(
  'soap11 element name of 257 characters',
  'soap11',
  'XML_LIMIT_EXCEEDED',
  soap11(PUBLIC, bereich11(`<bereichID>1</bereichID><${'n'.repeat(257)}/>`)),
);
add(
  'soap12 element name of 3,000,000 characters',
  'soap12',
  'XML_LIMIT_EXCEEDED',
  soap12(PUBLIC, bereich12(`<${'n'.repeat(3_000_000)}/>`)),
);
add(
  'soap11 attribute name of 300 characters',
  'soap11',
  'XML_LIMIT_EXCEEDED',
  soap11(PUBLIC, envelope('1.1', op('getBereich', '<bereichID>1</bereichID>', ` ${'b'.repeat(300)}="1"`))),
);
add(
  'soap12 prefix of 300 characters',
  'soap12',
  'XML_LIMIT_EXCEEDED',
  soap12(
    PUBLIC,
    bereich12(`<${'p'.repeat(300)}:x xmlns:${'p'.repeat(300)}="urn:p"/><bereichID>1</bereichID>`),
  ),
);
add(
  'soap12 text over 1 MiB',
  'soap12',
  'XML_LIMIT_EXCEEDED',
  soap12(V6, envelope('1.2', op('getAbonnierteNewsletter', `<email>${'m'.repeat(MIB + 10)}</email>`), AUTH)),
);
add(
  'soap11 namespace-scope bomb is answered quickly',
  'soap11',
  'ok',
  soap11(PUBLIC, bereich11('<bereichID>1</bereichID>', namespaceBomb())),
  3_000,
);
