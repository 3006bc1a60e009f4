import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { decodeBase64, encodeBase64 } from './base64.ts';

/** Around the piece sizes (48 KiB of bytes, 64 KiB of text) and the 128 KiB of a large string. */
const SIZES = [0, 1, 2, 3, 49_151, 49_152, 49_153, 98_304, 98_305, 100_000, 196_608, 1_000_001];

describe('base64 in pieces', () => {
  test('encodes as Buffer.toString does, at every size around the pieces', () => {
    for (const size of SIZES) {
      const bytes = randomBytes(size);
      const text = encodeBase64(bytes);
      assert.equal(text.toString('latin1'), bytes.toString('base64'), `${size} bytes`);
      assert.ok(decodeBase64(text).equals(bytes), `${size} bytes back`);
    }
  });

  test('takes a view into a larger buffer as just its bytes', () => {
    const whole = randomBytes(200_000);
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 7, 150_001);
    const text = encodeBase64(view);
    assert.equal(text.toString('latin1'), Buffer.from(view).toString('base64'));
    const framed = Buffer.concat([Buffer.from('xx'), text, Buffer.from('yy')]);
    assert.ok(decodeBase64(framed.subarray(2, framed.length - 2)).equals(Buffer.from(view)));
  });

  test('a text that is not of ours (whitespace, padding inside) decodes as Buffer.from does', () => {
    const bytes = randomBytes(150_000);
    const plain = bytes.toString('base64');
    const cases = [
      `${plain.slice(0, 70_001)}\n${plain.slice(70_001, 140_000)}\r\n ${plain.slice(140_000)}`,
      `${Buffer.from('ab').toString('base64')}${plain}`,
      `${plain}\n\n\n\n`,
    ];
    for (const text of cases) {
      const latin1 = Buffer.from(text, 'latin1');
      assert.ok(decodeBase64(latin1).equals(Buffer.from(text, 'base64')), `${text.length} characters`);
    }
  });
});
