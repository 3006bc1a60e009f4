import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalize } from './c14n.ts';

test('drops the declaration and expands empty elements', () => {
  assert.equal(canonicalize('<?xml version="1.0" encoding="utf-8"?><a><b /></a>'), '<a><b></b></a>');
});

test('orders namespace declarations before attributes, each canonically', () => {
  assert.equal(
    canonicalize('<a z="1" xmlns:y="urn:y" y:b="2" xmlns="urn:d" a="3"/>'),
    '<a xmlns="urn:d" xmlns:y="urn:y" a="3" z="1" y:b="2"></a>',
  );
});

test('drops declarations an ancestor already made', () => {
  assert.equal(canonicalize('<a xmlns="urn:x"><b xmlns="urn:x"/></a>'), '<a xmlns="urn:x"><b></b></a>');
});

test('turns CDATA into escaped text and keeps whitespace', () => {
  assert.equal(canonicalize('<a> <![CDATA[x<y&z]]> </a>'), '<a> x&lt;y&amp;z </a>');
});

test('tells different documents apart', () => {
  assert.notEqual(canonicalize('<a>1</a>'), canonicalize('<a>2</a>'));
  assert.notEqual(canonicalize('<a><b/></a>'), canonicalize('<a> <b/></a>'));
});

test('lines: indentation between elements is no difference, whitespace content is', () => {
  const compact = '<?xml version="1.0"?><r xmlns="urn:x"><a><b>1</b><c> </c><d/></a></r>';
  const indented =
    '<?xml version="1.0"?>\n<r xmlns="urn:x">\r\n  <a>\n    <b>1</b>\n    <c> </c>\n    <d />\n  </a>\n</r>';
  const expected = '<r xmlns="urn:x">\n  <a>\n    <b>1</b>\n    <c> </c>\n    <d></d>\n  </a>\n</r>';
  assert.equal(canonicalize(compact, { lines: true }), expected);
  assert.equal(canonicalize(indented, { lines: true }), expected);
  assert.notEqual(
    canonicalize('<r><c> </c></r>', { lines: true }),
    canonicalize('<r><c></c></r>', { lines: true }),
  );
  assert.notEqual(
    canonicalize('<r>x<a/></r>', { lines: true }),
    canonicalize('<r><a/></r>', { lines: true }),
  );
  assert.equal(canonicalize('<r>x<a/>y</r>', { lines: true }), '<r>x\n  <a></a>y\n</r>');
});
