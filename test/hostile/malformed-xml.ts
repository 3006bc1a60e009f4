/**
 * Malformed and truncated XML: a valid envelope cut at many points, and XML 1.0 syntax errors.
 */
import { hostileTheme } from '../support/hostile-case.ts';
import {
  bereich11,
  bereich12,
  PUBLIC,
  soap11,
  soap12,
  VALID11,
  VALID12,
  XSI_NS,
} from '../support/hostile-requests.ts';

const { theme, add } = hostileTheme('malformed and truncated XML');
export const malformedXml = theme;

// -- malformed and truncated XML: a valid envelope cut at many points.
{
  const cutAfter = (xml: string, marker: string, extra = 0) => xml.indexOf(marker) + marker.length + extra;
  const points11: [string, number][] = [
    ['inside the XML declaration', 9],
    ['after the XML declaration', cutAfter(VALID11, '?>')],
    ['inside the Envelope start tag name', cutAfter(VALID11, '<soap:Env')],
    ['inside a namespace URI', cutAfter(VALID11, 'xmlns:soap="http://sch')],
    ['after the Envelope start tag', cutAfter(VALID11, `xmlns:xsi="${XSI_NS}">`)],
    ['inside the Body start tag', cutAfter(VALID11, '<soap:Bo')],
    ['after the Body start tag', cutAfter(VALID11, '<soap:Body>')],
    ['inside the operation xmlns value', cutAfter(VALID11, '<getBereich xmlns="http://scoop')],
    ['after the parameter start tag', cutAfter(VALID11, '<bereichID>')],
    ['inside the parameter text', cutAfter(VALID11, '<bereichID>1')],
    ['inside the parameter end tag', cutAfter(VALID11, '</bereichI')],
    ['after the operation end tag', cutAfter(VALID11, '</getBereich>')],
    ['after the Body end tag', cutAfter(VALID11, '</soap:Body>')],
    ['inside the Envelope end tag', cutAfter(VALID11, '</soap:Envelo')],
    ['one byte before the end', VALID11.length - 1],
  ];
  for (const [where, at] of points11)
    add(`soap11 truncated ${where}`, 'soap11', 'MALFORMED_XML', soap11(PUBLIC, VALID11.slice(0, at)));
  const points12: [string, number][] = [
    ['after the XML declaration', cutAfter(VALID12, '?>')],
    ['inside an attribute value', cutAfter(VALID12, 'xmlns:soap="http://www.w3')],
    ['after the Body start tag', cutAfter(VALID12, '<soap:Body>')],
    ['inside the operation start tag', cutAfter(VALID12, '<getBer')],
    ['inside the parameter text', cutAfter(VALID12, '<bereichID>1')],
    ['after the Body end tag', cutAfter(VALID12, '</soap:Body>')],
    ['one byte before the end', VALID12.length - 1],
  ];
  for (const [where, at] of points12)
    add(`soap12 truncated ${where}`, 'soap12', 'MALFORMED_XML', soap12(PUBLIC, VALID12.slice(0, at)));
}
add(
  'soap11 mismatched end tag',
  'soap11',
  'MALFORMED_XML',
  soap11(PUBLIC, bereich11('<bereichID>1</bereichid>')),
);
add(
  'soap12 unclosed attribute quote',
  'soap12',
  'MALFORMED_XML',
  soap12(PUBLIC, bereich12('<bereichID a="1>1</bereichID>')),
);
add(
  'soap11 unbound prefix',
  'soap11',
  'MALFORMED_XML',
  soap11(PUBLIC, bereich11('<x:bereichID>1</x:bereichID>')),
);
add(
  'soap12 undefined entity',
  'soap12',
  'MALFORMED_XML',
  soap12(PUBLIC, bereich12('<bereichID>&nbsp;1</bereichID>')),
);
add('soap11 two root elements', 'soap11', 'MALFORMED_XML', soap11(PUBLIC, `${VALID11}<soap:Envelope/>`));
add('soap12 text after the root', 'soap12', 'MALFORMED_XML', soap12(PUBLIC, `${VALID12}trailing`));
add(
  'soap11 double hyphen in a comment',
  'soap11',
  'MALFORMED_XML',
  soap11(PUBLIC, bereich11('<!-- a -- b --><bereichID>1</bereichID>')),
);
add(
  'soap12 unterminated CDATA',
  'soap12',
  'MALFORMED_XML',
  soap12(PUBLIC, bereich12('<bereichID><![CDATA[1</bereichID>')),
);
add(
  'soap11 ]]> in character data',
  'soap11',
  'MALFORMED_XML',
  soap11(PUBLIC, bereich11('<bereichID>1]]></bereichID>')),
);
add(
  'soap12 duplicate attribute',
  'soap12',
  'MALFORMED_XML',
  soap12(PUBLIC, bereich12('<bereichID a="1" a="2">1</bereichID>')),
);
add(
  'soap11 < in an attribute value',
  'soap11',
  'MALFORMED_XML',
  soap11(PUBLIC, bereich11('<bereichID a="<">1</bereichID>')),
);
add('soap12 JSON body', 'soap12', 'MALFORMED_XML', soap12(PUBLIC, '{"getBereich":{"bereichID":1}}'));
add(
  'soap11 XML declaration not at the start',
  'soap11',
  'MALFORMED_XML',
  soap11(PUBLIC, `\n<!-- x -->${VALID11}`),
);
add(
  'soap12 <!ENTITY in content without a DOCTYPE',
  'soap12',
  'MALFORMED_XML',
  soap12(PUBLIC, bereich12('<!ENTITY x "y"><bereichID>1</bereichID>')),
);
add('soap11 lower-case <!doctype', 'soap11', 'MALFORMED_XML', (c) =>
  soap11(PUBLIC, `<!doctype x SYSTEM "${c.trap}/lower">${VALID11.slice(VALID11.indexOf('?>') + 2)}`),
);
add(
  'soap12 character reference to U+0000',
  'soap12',
  'MALFORMED_XML',
  soap12(PUBLIC, bereich12('<bereichID>&#0;1</bereichID>')),
);
add(
  'soap11 character reference to a lone surrogate',
  'soap11',
  'MALFORMED_XML',
  soap11(PUBLIC, bereich11('<bereichID>&#xD800;</bereichID>')),
);
add(
  'soap12 character reference beyond U+10FFFF',
  'soap12',
  'MALFORMED_XML',
  soap12(PUBLIC, bereich12('<bereichID>&#x110000;</bereichID>')),
);
add(
  'soap11 raw control character',
  'soap11',
  'MALFORMED_XML',
  soap11(PUBLIC, bereich11('<bereichID>\u00011</bereichID>')),
);
add(
  'soap12 raw U+FFFE',
  'soap12',
  'MALFORMED_XML',
  soap12(PUBLIC, bereich12('<bereichID>\uFFFE</bereichID>')),
);
add(
  'soap11 raw NUL byte',
  'soap11',
  'MALFORMED_XML',
  soap11(PUBLIC, bereich11('<bereichID>1\u0000</bereichID>')),
);
add('soap11 whitespace-only body', 'soap11', 'EMPTY_BODY', soap11(PUBLIC, ' \r\n\t '));
add('soap12 only an XML declaration', 'soap12', 'MALFORMED_XML', soap12(PUBLIC, '<?xml version="1.0"?>'));
