import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertScoopError, assertXmlError } from '../../test/support/assertions.ts';
import type { ErrorCode } from '../contract/errors.ts';
import { DEFAULT_XML_LIMITS, parseXml, type XmlErrorKind } from '../xml/reader.ts';
import { readRequestXml } from './request-xml.ts';

describe("readRequestXml: the reader's refusals as catalogue errors", () => {
  const small = { ...DEFAULT_XML_LIMITS, maxDepth: 2 };
  const cases: [string, string, XmlErrorKind, ErrorCode][] = [
    ['not well-formed', '<a>\n<b></c></a>', 'malformed', 'MALFORMED_XML'],
    ['no root element', '<?xml version="1.0"?>', 'malformed', 'MALFORMED_XML'],
    ['a DOCTYPE', '<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', 'doctype', 'DTD_NOT_ALLOWED'],
    ['a limit', '<a><b><c/></b></a>', 'limit', 'XML_LIMIT_EXCEEDED'],
  ];
  for (const [name, xml, kind, code] of cases) {
    test(`${name}: ${kind} becomes ${code} with the reader's message`, () => {
      const refusal = assertXmlError(() => parseXml(xml, small), kind);
      const error = assertScoopError(() => readRequestXml(xml, small), code);
      assert.equal(error.message, refusal.message);
    });
  }

  test('a document within the limits is read as the reader reads it', () => {
    const xml = '<a xmlns="urn:a"><b>1</b></a>';
    assert.deepEqual(readRequestXml(xml), parseXml(xml));
  });
});
