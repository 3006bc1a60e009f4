/**
 * Reading a request body's XML, refused with the catalogue's codes: the reader (xml/)
 * throws its own XmlError, which knows nothing of the catalogue, and this is the one
 * place its kinds become ScoopErrors. The message is the reader's, unchanged.
 */
import { type ErrorCode, ScoopError } from '../contract/errors.ts';
import { type ParsedDocument, parseXml, XmlError, type XmlErrorKind, type XmlLimits } from '../xml/reader.ts';

const CODES: Readonly<Record<XmlErrorKind, ErrorCode>> = {
  malformed: 'MALFORMED_XML',
  doctype: 'DTD_NOT_ALLOWED',
  limit: 'XML_LIMIT_EXCEEDED',
};

export function readRequestXml(text: string, limits?: XmlLimits): ParsedDocument {
  try {
    return parseXml(text, limits);
  } catch (error) {
    if (error instanceof XmlError) throw new ScoopError(CODES[error.kind], error.message);
    throw error;
  }
}
