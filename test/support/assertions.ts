/** Assertions shared by the unit tests beside the code (src/**\/*.test.ts). */
import assert from 'node:assert/strict';
import { SaxesParser } from 'saxes';
import { type ErrorCode, ScoopError } from '../../src/contract/errors.ts';
import { materialize } from '../../src/server/send.ts';
import { XmlError, type XmlErrorKind } from '../../src/xml/reader.ts';
import type { BodyPart } from '../../src/xml/writer.ts';

/** Runs `fn` and asserts it throws a ScoopError with `code`; returns the error for further checks. */
export function assertScoopError(fn: () => unknown, code: ErrorCode): ScoopError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught !== undefined, `expected ScoopError ${code}, but nothing was thrown`);
  assert.ok(caught instanceof ScoopError, `expected ScoopError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, `expected ${code}, got ${caught.code}: ${caught.message}`);
  return caught;
}

/** Runs `fn` and asserts it throws the XML reader's XmlError of `kind`; returns the error for further checks. */
export function assertXmlError(fn: () => unknown, kind: XmlErrorKind): XmlError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught !== undefined, `expected XmlError ${kind}, but nothing was thrown`);
  assert.ok(caught instanceof XmlError, `expected XmlError ${kind}, got ${String(caught)}`);
  assert.equal(caught.kind, kind, `expected ${kind}, got ${caught.kind}: ${caught.message}`);
  return caught;
}

/** The async variant, for functions that return a promise. */
export async function assertScoopErrorAsync(
  fn: () => Promise<unknown>,
  code: ErrorCode,
): Promise<ScoopError> {
  let caught: unknown;
  try {
    await fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof ScoopError, `expected ScoopError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, `expected ${code}, got ${caught.code}: ${caught.message}`);
  return caught;
}

/**
 * Parses `xml` with saxes in namespace mode (an independent parser, not the project's
 * reader) and fails the test when it is not namespace-well-formed XML 1.0.
 */
export function assertWellFormed(xml: string): void {
  const parser = new SaxesParser({ xmlns: true });
  const errors: string[] = [];
  parser.on('error', (error) => {
    errors.push(error.message);
  });
  parser.write(xml).close();
  assert.deepEqual(errors, [], `not well-formed:\n${xml}`);
}

/** Renders body parts exactly as the server sends them (src/server/send.ts). */
export function renderParts(parts: readonly BodyPart[]): Promise<Buffer> {
  return materialize(parts);
}
