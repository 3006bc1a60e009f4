import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { ScoopError } from '../contract/errors.ts';
import { renderHttpError, renderSoapFault } from '../protocol/faults.ts';
import { describeRefusal, readRefusal, unknownIdIn } from './refusal.ts';

const NS = 'http://scoop.example.org/api';

/** Status, content type and body of an original's capture (test/fixtures/reference/README.md). */
function capture(file: string): { status: number; contentType: string; body: string } {
  const text = readFileSync(`test/fixtures/reference/${file}`, 'utf8');
  const response = text.slice(text.indexOf('\n', text.indexOf('===== RESPONSE')) + 1);
  const split = response.indexOf('\r\n\r\n');
  const head = response.slice(0, split);
  return {
    status: Number(/^HTTP\/1\.\d (\d+)/.exec(head)![1]),
    contentType: /\r\nContent-Type: ([^\r]*)/i.exec(head)![1]!,
    body: response.slice(split + 4),
  };
}

function read(file: string) {
  const c = capture(file);
  return readRefusal(c.status, c.contentType, c.body);
}

describe("the original's refusals", () => {
  for (const folder of ['errors', 'errors-customErrors-On']) {
    test(`${folder}: an unknown id in both of its forms, on SOAP 1.1, SOAP 1.2 and HTTP GET`, () => {
      for (const file of ['unknown-id.soap11.txt', 'unknown-id.soap12.txt', 'unknown-id.httpget.txt']) {
        assert.deepEqual(
          { ...read(`${folder}/${file}`), message: undefined },
          { kind: 'unknown-id', parameter: 'bereichID', id: 999, message: undefined },
          file,
        );
      }
      assert.deepEqual(
        { ...read(`${folder}/unknown-id-scoop.soap11.txt`), message: undefined },
        { kind: 'unknown-id', parameter: 'artikelID', id: 999, message: undefined },
      );
    });

    test(`${folder}: a parameter the service did not read names id 0`, () => {
      const refusal = read(`${folder}/wrong-body-namespace.soap11.txt`);
      assert.equal(refusal.kind, 'unknown-id');
      assert.equal(refusal.kind === 'unknown-id' && refusal.id, 0);
    });

    test(`${folder}: other faults are client or protocol faults, never unknown`, () => {
      for (const file of [
        'wrong-token.soap11.txt',
        'missing-token.soap11.txt',
        'soapaction-wrong-namespace.soap11.txt',
        'malformed-token.soap11.txt',
      ]) {
        const refusal = read(`${folder}/${file}`);
        assert.equal(refusal.kind, 'fault', file);
        assert.equal(refusal.kind === 'fault' && refusal.side, 'client', file);
        assert.ok(!describeRefusal(refusal).includes('\n'), 'one line');
      }
      const mu = read(`${folder}/mustUnderstand-unknown-header.soap11.txt`);
      assert.equal(mu.kind === 'fault' && mu.side, 'protocol');
    });
  }

  test('the stack trace is cut to its first line', () => {
    const refusal = read('errors/wrong-token.soap11.txt');
    assert.equal(
      describeRefusal(refusal),
      'System.Web.Services.Protocols.SoapException: Authentication failed: the token is not valid.',
    );
  });
});

describe("scoop's refusals", () => {
  test('UNKNOWN_ID as a SOAP 1.1 and 1.2 fault and as an HTTP error body', () => {
    const error = new ScoopError('UNKNOWN_ID', 'Unknown anhangID: -7');
    for (const version of ['1.1', '1.2'] as const) {
      const rendered = renderSoapFault(error, version, NS);
      assert.deepEqual(readRefusal(rendered.status, rendered.contentType, rendered.body.toString()), {
        kind: 'unknown-id',
        parameter: 'anhangID',
        id: -7,
        message: 'Unknown anhangID: -7',
      });
    }
    const http = renderHttpError(error, NS);
    assert.equal(readRefusal(http.status, http.contentType, http.body.toString()).kind, 'unknown-id');
  });

  test('another code with the same message is not unknown', () => {
    const rendered = renderSoapFault(new ScoopError('INVALID_PARAMETER', 'Unknown bereichID: 1'), '1.1', NS);
    const refusal = readRefusal(rendered.status, rendered.contentType, rendered.body.toString());
    assert.deepEqual(refusal, {
      kind: 'fault',
      side: 'client',
      code: 'INVALID_PARAMETER',
      message: 'Unknown bereichID: 1',
    });
  });

  test('AUTH_FAILED is a client fault with its code, BUSY a server fault', () => {
    const auth = renderSoapFault(
      new ScoopError('AUTH_FAILED', 'Authentication failed: a valid token is required.'),
      '1.1',
      NS,
    );
    assert.deepEqual(readRefusal(auth.status, auth.contentType, auth.body.toString()), {
      kind: 'fault',
      side: 'client',
      code: 'AUTH_FAILED',
      message: 'Authentication failed: a valid token is required.',
    });
    const busy = renderHttpError(new ScoopError('BUSY', 'busy'), NS);
    const refusal = readRefusal(busy.status, busy.contentType, busy.body.toString());
    assert.equal(refusal.kind === 'fault' && refusal.side, 'server');
  });
});

describe('what is not this wire', () => {
  test('an HTML page, a proxy error, an empty body', () => {
    assert.deepEqual(readRefusal(404, 'text/html', '<html><head><title>Not Found</title></head></html>'), {
      kind: 'other',
      status: 404,
      contentType: 'text/html',
      summary: 'an HTML page titled "Not Found"',
    });
    assert.equal(readRefusal(502, 'text/xml', '<oops').kind, 'other');
    assert.equal(describeRefusal(readRefusal(503, '', '')), 'HTTP 503, an empty body');
  });

  test('only the two forms of the message are unknown', () => {
    assert.deepEqual(unknownIdIn('Unknown bereichID: 5\n'), { parameter: 'bereichID', id: 5 });
    assert.equal(unknownIdIn('Unknown bereichID: 5 (deleted)'), undefined);
    assert.equal(unknownIdIn('Error: Unknown bereichID: 5'), undefined);
    assert.equal(unknownIdIn('System.Web.Services.Protocols.SoapException: Unknown bereichID: 5'), undefined);
    assert.deepEqual(
      unknownIdIn('System.Web.Services.Protocols.SoapException: Unknown bereichID: 5\r\n  at X'),
      {
        parameter: 'bereichID',
        id: 5,
      },
    );
  });
});
