import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertXmlError } from '../../test/support/assertions.ts';
import {
  attributeValue,
  childElements,
  containsDoctype,
  DEFAULT_XML_LIMITS,
  parseXml,
  type XmlLimits,
} from './reader.ts';

const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

function limits(overrides: Partial<XmlLimits>): XmlLimits {
  return { ...DEFAULT_XML_LIMITS, ...overrides };
}

/** Every declaration in scope, own and inherited, as a plain object. */
function inScope(namespaces: Readonly<Record<string, string>>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const prefix in namespaces) flat[prefix] = namespaces[prefix]!;
  return flat;
}

function attributes(count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += ` a${i}="${i}"`;
  return out;
}

function nested(depth: number): string {
  return `${'<e>'.repeat(depth)}${'</e>'.repeat(depth)}`;
}

describe('parseXml: tree and namespaces', () => {
  test('resolves prefixed and default namespaces on elements', () => {
    const { root } = parseXml(
      '<s:Envelope xmlns:s="urn:env"><s:Body><op xmlns="urn:api"><id>1</id></op></s:Body></s:Envelope>',
    );
    assert.deepEqual([root.uri, root.local, root.prefix], ['urn:env', 'Envelope', 's']);
    const body = root.children[0]!;
    assert.deepEqual([body.uri, body.local, body.prefix], ['urn:env', 'Body', 's']);
    const op = body.children[0]!;
    assert.deepEqual([op.uri, op.local, op.prefix], ['urn:api', 'op', '']);
    const id = op.children[0]!;
    assert.deepEqual([id.uri, id.local, id.text], ['urn:api', 'id', '1']);
  });

  test('an element without a default namespace in scope has the empty URI', () => {
    const { root } = parseXml('<a><b/></a>');
    assert.equal(root.uri, '');
    assert.equal(root.children[0]!.uri, '');
  });

  test('a redeclared prefix applies to the inner scope only', () => {
    const { root } = parseXml('<p:a xmlns:p="urn:1"><p:b xmlns:p="urn:2"/><p:c/></p:a>');
    assert.deepEqual(
      root.children.map((c) => [c.local, c.uri]),
      [
        ['b', 'urn:2'],
        ['c', 'urn:1'],
      ],
    );
  });

  test('attributes: prefixed ones are namespaced, unprefixed ones are not', () => {
    const { root } = parseXml('<a xmlns="urn:d" xmlns:p="urn:p" p:x="1" y="2"/>');
    assert.deepEqual(
      root.attributes.filter((a) => a.uri !== XMLNS_NS),
      [
        { uri: 'urn:p', local: 'x', prefix: 'p', value: '1' },
        { uri: '', local: 'y', prefix: '', value: '2' },
      ],
    );
    assert.equal(attributeValue(root, 'urn:p', 'x'), '1');
    assert.equal(attributeValue(root, '', 'y'), '2');
    assert.equal(attributeValue(root, 'urn:d', 'y'), undefined, 'the default namespace does not apply');
    assert.equal(attributeValue(root, 'urn:p', 'missing'), undefined);
  });

  test('records the namespace declarations in scope, inherited and overridden', () => {
    const { root } = parseXml('<a xmlns="urn:d" xmlns:p="urn:p"><b xmlns:q="urn:q" xmlns:p="urn:p2"/></a>');
    assert.deepEqual(inScope(root.namespaces), { '': 'urn:d', p: 'urn:p' });
    assert.deepEqual(inScope(root.children[0]!.namespaces), { '': 'urn:d', p: 'urn:p2', q: 'urn:q' });
    assert.equal(root.namespaces.constructor, undefined, 'no Object.prototype members');
  });

  test('a few declarations are copied into each scope, many are chained; either way each prefix resolves as declared', () => {
    const small = '<a xmlns:p="urn:p" xmlns:q="urn:q"><b xmlns:p="urn:p2"><c xmlns:r="urn:r"/></b></a>';
    const c = parseXml(small).root.children[0]!.children[0]!;
    assert.deepEqual(inScope(c.namespaces), { p: 'urn:p2', q: 'urn:q', r: 'urn:r' });
    assert.equal(Object.getPrototypeOf(c.namespaces), null, 'a small scope is a copy');
    assert.equal(c.namespaces.constructor, undefined);
    let many = '';
    for (let i = 0; i < 40; i++) many += ` xmlns:m${i}="urn:m${i}"`;
    const big = parseXml(`<a xmlns:p="urn:p"><b${many}><c xmlns:r="urn:r"><d xmlns:s="urn:s"/></c></b></a>`);
    const d = big.root.children[0]!.children[0]!.children[0]!;
    assert.deepEqual(
      Object.keys(d.namespaces),
      ['s'],
      'past 32 names in scope, an element adds only its own',
    );
    assert.equal(d.namespaces.m39, 'urn:m39');
    assert.equal(d.namespaces.p, 'urn:p');
    assert.equal(d.namespaces.r, 'urn:r');
    assert.equal(inScope(d.namespaces).m0, 'urn:m0');
  });

  test('namespace scopes past a few names are chained, not copied: many declarations over many elements stay fast', () => {
    let open = '';
    let close = '';
    for (let depth = 0; depth < 30; depth++) {
      let declarations = '';
      for (let i = 0; i < 64; i++) declarations += ` xmlns:p${depth}_${i}="urn:${depth}:${i}"`;
      open += `<e${declarations}>`;
      close = `</e>${close}`;
    }
    const started = Date.now();
    const { root } = parseXml(`${open}${'<a/>'.repeat(9_000)}${close}`);
    assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
    let leafParent = root;
    while (leafParent.children[0]!.local === 'e') leafParent = leafParent.children[0]!;
    assert.equal(leafParent.children[0]!.namespaces.p0_0, 'urn:0:0');
  });

  test('leaves that each declare a namespace under a large scope chain it, not copy it', () => {
    let declarations = '';
    for (let i = 0; i < 64; i++) declarations += ` xmlns:p${i}="urn:${i}"`;
    const leaves = '<a xmlns:z="urn:z"/>'.repeat(9_000);
    const limits = { ...DEFAULT_XML_LIMITS, maxDocumentAttributes: 20_000 };
    const started = Date.now();
    const { root } = parseXml(`<r xmlns:q="urn:q"><e${declarations}>${leaves}</e></r>`, limits);
    assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
    const leaf = root.children[0]!.children[8_999]!;
    assert.deepEqual(Object.keys(leaf.namespaces), ['z']);
    assert.equal(leaf.namespaces.p63, 'urn:63');
    assert.equal(leaf.namespaces.q, 'urn:q');
  });

  test('childElements filters by namespace and local name', () => {
    const { root } = parseXml('<r xmlns="urn:a" xmlns:b="urn:b"><x>1</x><b:x>2</b:x><x>3</x><y/></r>');
    assert.deepEqual(
      childElements(root, 'urn:a', 'x').map((e) => e.text),
      ['1', '3'],
    );
    assert.deepEqual(
      childElements(root, 'urn:b', 'x').map((e) => e.text),
      ['2'],
    );
    assert.deepEqual(childElements(root, 'urn:a', 'z'), []);
  });
});

describe('parseXml: character data', () => {
  test('concatenates text and CDATA and ignores comments', () => {
    const { root } = parseXml('<a>x<![CDATA[<y> & ]]]><!-- no -->z</a>');
    assert.equal(root.text, 'x<y> & ]z');
  });

  test('text around child elements belongs to the parent, concatenated', () => {
    const { root } = parseXml('<a>1<b>inner</b>2</a>');
    assert.equal(root.text, '12');
    assert.equal(root.children[0]!.text, 'inner');
  });

  test('whitespace is kept as it is in element text', () => {
    const { root } = parseXml('<a>\n  1\t</a>');
    assert.equal(root.text, '\n  1\t');
  });

  test('expands the five predefined entities', () => {
    assert.equal(parseXml('<a>&lt;&gt;&amp;&quot;&apos;</a>').root.text, `<>&"'`);
  });

  test('expands decimal and hexadecimal character references, astral ones included', () => {
    assert.equal(parseXml('<a>&#65;&#x42;&#x1F600;&#119070;</a>').root.text, 'AB😀𝄞');
  });

  test('expands character references in attribute values', () => {
    const { root } = parseXml('<a v="&#x26;&amp;&#60;"/>');
    assert.equal(attributeValue(root, '', 'v'), '&&<');
  });

  test('refuses a character reference to a character XML 1.0 forbids', () => {
    assertXmlError(() => parseXml('<a>&#1;</a>'), 'malformed');
    assertXmlError(() => parseXml('<a>&#0;</a>'), 'malformed');
  });

  test('refuses an undefined entity', () => {
    const error = assertXmlError(() => parseXml('<a>&foo;</a>'), 'malformed');
    assert.match(error.message, /undefined entity/);
  });

  test('refuses a raw forbidden control character', () => {
    assertXmlError(() => parseXml('<a>\u0001</a>'), 'malformed');
  });

  test('ignores whitespace and comments around the root element', () => {
    const { root } = parseXml('\n <!-- c --> <a>1</a> \n<!-- d -->\n');
    assert.equal(root.local, 'a');
    assert.equal(root.text, '1');
  });
});

describe('parseXml: processing instructions', () => {
  test('flags a processing instruction', () => {
    assert.equal(parseXml('<?xml version="1.0"?><?pi data?><a/>').hasProcessingInstruction, true);
    assert.equal(parseXml('<a><?pi?></a>').hasProcessingInstruction, true);
    assert.equal(parseXml('<a/><?pi?>').hasProcessingInstruction, true);
  });

  test('does not count the XML declaration as a processing instruction', () => {
    assert.equal(parseXml('<?xml version="1.0" encoding="utf-8"?><a/>').hasProcessingInstruction, false);
    assert.equal(parseXml('<a/>').hasProcessingInstruction, false);
  });
});

describe('parseXml: malformed documents', () => {
  const cases: [string, string][] = [
    ['truncated inside an element', '<a><b>'],
    ['truncated inside a start tag', '<a><b x="1'],
    ['truncated inside a comment', '<a><!-- x'],
    ['truncated inside CDATA', '<a><![CDATA[x'],
    ['no root: empty', ''],
    ['no root: whitespace', '  \n '],
    ['no root: a comment only', '<!-- c -->'],
    ['no root: the declaration only', '<?xml version="1.0"?>'],
    ['two roots', '<a/><b/>'],
    ['mismatched end tag', '<a></b>'],
    ['text before the root', 'x<a/>'],
    ['unbound prefix', '<p:a/>'],
    ['duplicate attribute', '<a x="1" x="2"/>'],
    ['unquoted attribute', '<a x=1/>'],
    ['lone ampersand', '<a>&</a>'],
    ['lone less-than', '<a>1 < 2</a>'],
    ['not XML at all', 'bereichID=1'],
    ['a lower-case doctype is not a doctype but bad syntax', '<!doctype a><a/>'],
  ];
  for (const [name, xml] of cases) {
    test(`refuses ${name} as malformed`, () => {
      assertXmlError(() => parseXml(xml), 'malformed');
    });
  }

  test('says where the error is, in one short line', () => {
    const error = assertXmlError(() => parseXml('<a>\n<b></c></a>'), 'malformed');
    assert.match(error.message, /^The request body is not well-formed XML: 2:\d+: /);
    assert.equal(/\n/.test(error.message), false);
  });
});

describe('parseXml: DTDs are refused', () => {
  const cases: [string, string][] = [
    ['a bare DOCTYPE', '<!DOCTYPE a><a/>'],
    ['an empty internal subset', '<!DOCTYPE a []><a/>'],
    ['an internal entity', '<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>'],
    ['an external entity (XXE)', '<!DOCTYPE a [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><a>&xxe;</a>'],
    ['an external entity over http', '<!DOCTYPE a [<!ENTITY x SYSTEM "http://127.0.0.1:1/x">]><a>&x;</a>'],
    ['an external DTD', '<!DOCTYPE a SYSTEM "http://127.0.0.1:1/evil.dtd"><a/>'],
    ['a public external DTD', '<!DOCTYPE a PUBLIC "-//X//Y" "http://127.0.0.1:1/x.dtd"><a/>'],
    ['a parameter entity', '<!DOCTYPE a [<!ENTITY % p SYSTEM "http://127.0.0.1:1/p.dtd"> %p;]><a/>'],
    [
      'billion laughs',
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
        '<!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
        '<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">' +
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><lolz>&lol3;</lolz>',
    ],
    ['quadratic blowup', `<!DOCTYPE a [<!ENTITY x "${'x'.repeat(10_000)}">]><a>${'&x;'.repeat(1000)}</a>`],
    [
      'a DOCTYPE after the declaration and whitespace',
      '<?xml version="1.0" encoding="utf-8"?>\n\n<!DOCTYPE a>\n<a/>',
    ],
    [
      'a DOCTYPE in a SOAP envelope',
      '<!DOCTYPE s:Envelope [<!ENTITY e "1">]><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>&e;</s:Body></s:Envelope>',
    ],
    ['a malformed DOCTYPE', '<!DOCTYPE a [<!ENTITY'],
  ];
  for (const [name, xml] of cases) {
    test(`refuses ${name} as a DOCTYPE`, () => {
      assertXmlError(() => parseXml(xml), 'doctype');
    });
  }

  test('containsDoctype looks for the case-sensitive keyword', () => {
    assert.equal(containsDoctype('<!DOCTYPE a><a/>'), true);
    assert.equal(containsDoctype('<!doctype a><a/>'), false);
    assert.equal(containsDoctype('<a>DOCTYPE</a>'), false);
  });
});

describe('parseXml: limits', () => {
  test('the default limits', () => {
    assert.deepEqual(DEFAULT_XML_LIMITS, {
      maxDepth: 32,
      maxElements: 10_000,
      maxAttributes: 64,
      maxDocumentAttributes: 2048,
      maxNameLength: 256,
      maxTextLength: 1_048_576,
      maxAttributeLength: 65_536,
    });
  });

  test('depth: exactly maxDepth levels pass, one more is refused', () => {
    const l = limits({ maxDepth: 5 });
    assert.equal(parseXml(nested(5), l).root.local, 'e');
    const error = assertXmlError(() => parseXml(nested(6), l), 'limit');
    assert.match(error.message, /nesting depth/);
  });

  test('depth: the default refuses 33 levels', () => {
    parseXml(nested(32));
    assertXmlError(() => parseXml(nested(33)), 'limit');
  });

  test('depth: an unclosed deep document is refused for depth before it is seen to be truncated', () => {
    assertXmlError(() => parseXml('<e>'.repeat(100_000)), 'limit');
  });

  test('element count: exactly maxElements pass, one more is refused (siblings count)', () => {
    const l = limits({ maxElements: 4 });
    assert.equal(parseXml('<r><a/><a/><a/></r>', l).root.children.length, 3);
    const error = assertXmlError(() => parseXml('<r><a/><a/><a/><a/></r>', l), 'limit');
    assert.match(error.message, /number of elements/);
  });

  test('element count: the default refuses 10 001 elements', () => {
    parseXml(`<r>${'<a/>'.repeat(9_999)}</r>`);
    assertXmlError(() => parseXml(`<r>${'<a/>'.repeat(10_000)}</r>`), 'limit');
  });

  test('attribute count: exactly maxAttributes pass, one more is refused', () => {
    const l = limits({ maxAttributes: 3 });
    assert.equal(parseXml('<a x="1" y="2" z="3"/>', l).root.attributes.length, 3);
    const error = assertXmlError(() => parseXml('<a x="1" y="2" z="3" w="4"/>', l), 'limit');
    assert.match(error.message, /number of attributes/);
  });

  test('attribute count: namespace declarations count, and the count is per element', () => {
    const l = limits({ maxAttributes: 2 });
    assertXmlError(() => parseXml('<a xmlns="urn:a" xmlns:p="urn:p" x="1"/>', l), 'limit');
    const { root } = parseXml('<a x="1" y="2"><b x="1" y="2"/><c x="1" y="2"/></a>', l);
    assert.equal(root.children.length, 2);
  });

  test('attributes in the document: exactly maxDocumentAttributes pass, one more is refused', () => {
    const l = limits({ maxDocumentAttributes: 4 });
    assert.equal(parseXml('<a xmlns="urn:a" x="1"><b y="1"/><c z="1"/></a>', l).root.children.length, 2);
    const error = assertXmlError(
      () => parseXml('<a xmlns="urn:a" x="1"><b y="1"/><c z="1" w="1"/></a>', l),
      'limit',
    );
    assert.match(error.message, /number of attributes in the document/);
  });

  test('attributes in the document: the default refuses 2,049, each element well under its own limit', () => {
    const element = (n: number) => `<h${attributes(n)}/>`;
    parseXml(`<r>${element(32).repeat(64)}</r>`);
    assertXmlError(() => parseXml(`<r>${element(32).repeat(64)}${element(1)}</r>`), 'limit');
  });

  test('attribute value length: 64 KiB by default, as Apache CXF; a 1 MiB value is refused', () => {
    parseXml(`<a v="${'x'.repeat(65_536)}"/>`);
    const error = assertXmlError(() => parseXml(`<a v="${'x'.repeat(65_537)}"/>`), 'limit');
    assert.match(error.message, /attribute value length/);
    assertXmlError(() => parseXml(`<a v="${'x'.repeat(1_048_576)}"/>`), 'limit');
  });

  test('name length: an element name of maxNameLength passes, one longer is refused', () => {
    const l = limits({ maxNameLength: 10 });
    parseXml(`<${'a'.repeat(10)}/>`, l);
    const error = assertXmlError(() => parseXml(`<${'a'.repeat(11)}/>`, l), 'limit');
    assert.match(error.message, /name length/);
  });

  test('name length: counts the prefix of a qualified element name', () => {
    const l = limits({ maxNameLength: 10 });
    assertXmlError(() => parseXml(`<pp:${'a'.repeat(8)} xmlns:pp="urn:p"/>`, l), 'limit');
  });

  test('name length: an attribute name longer than the limit is refused', () => {
    const l = limits({ maxNameLength: 10 });
    parseXml(`<a ${'b'.repeat(10)}="1"/>`, l);
    assertXmlError(() => parseXml(`<a ${'b'.repeat(11)}="1"/>`, l), 'limit');
  });

  test('name length: a long end tag of a refused start tag is never reached', () => {
    const l = limits({ maxNameLength: 256 });
    const name = 'n'.repeat(10_000);
    assertXmlError(() => parseXml(`<${name}></${name}>`, l), 'limit');
  });

  test('text length: text of maxTextLength passes, one character more is refused', () => {
    const l = limits({ maxTextLength: 8 });
    assert.equal(parseXml(`<a>${'x'.repeat(8)}</a>`, l).root.text, 'xxxxxxxx');
    const error = assertXmlError(() => parseXml(`<a>${'x'.repeat(9)}</a>`, l), 'limit');
    assert.match(error.message, /text length/);
  });

  test('text length: text split by CDATA, comments and children adds up', () => {
    const l = limits({ maxTextLength: 8 });
    assertXmlError(() => parseXml('<a>xxx<![CDATA[xxx]]><!-- -->xxx</a>', l), 'limit');
    assertXmlError(() => parseXml('<a>xxxxx<b/>xxxx</a>', l), 'limit');
    assert.equal(parseXml('<a>xxxx<b>xxxxxxxx</b>xxxx</a>', l).root.text, 'xxxxxxxx', 'per element');
  });

  test('text length: a long attribute value is refused', () => {
    const l = limits({ maxTextLength: 8 });
    parseXml(`<a v="${'x'.repeat(8)}"/>`, l);
    assertXmlError(() => parseXml(`<a v="${'x'.repeat(9)}"/>`, l), 'limit');
  });
});
