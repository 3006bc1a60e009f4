import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  contradictedSignature,
  isRasterSignature,
  mediaSignature,
  signatureOfMediaType,
} from './media-signature.ts';

const bytes = (text: string, ...prefix: number[]) =>
  Buffer.concat([Buffer.from(prefix), Buffer.from(text, 'latin1'), Buffer.alloc(16)]);

const SAMPLES = {
  jpeg: bytes('', 0xff, 0xd8, 0xff, 0xe0),
  png: bytes('\x89PNG\r\n\x1a\n'),
  gif: bytes('GIF89a'),
  webp: bytes('RIFF\0\0\0\0WEBPVP8 '),
  tiff: bytes('MM\0*'),
  heif: bytes('\0\0\0\x1cftypavif'),
  svg: bytes(
    '\xef\xbb\xbf<?xml version="1.0"?>\n<!-- plan -->\n<!DOCTYPE svg>\n<svg xmlns="http://www.w3.org/2000/svg"/>',
  ),
  pdf: bytes('%PDF-1.7\n'),
} as const;

test('each format is told by its first bytes; other bytes are none', () => {
  for (const [name, sample] of Object.entries(SAMPLES)) assert.equal(mediaSignature(sample), name);
  assert.equal(mediaSignature(bytes('GIF87a')), 'gif');
  assert.equal(mediaSignature(bytes('II*\0')), 'tiff');
  assert.equal(mediaSignature(bytes('<svg>')), 'svg');
  for (const other of ['Satzung der Stadt', '<?xml version="1.0"?><html/>', '<svgx/>', 'PK\x03\x04']) {
    assert.equal(mediaSignature(bytes(other)), undefined, other);
  }
  assert.equal(mediaSignature(Buffer.alloc(0)), undefined);
  assert.equal(mediaSignature(Buffer.from([0xff, 0xd8])), undefined);
});

test('raster signatures are the formats libvips resizes here', () => {
  const raster = Object.keys(SAMPLES).filter((name) =>
    isRasterSignature(mediaSignature(SAMPLES[name as keyof typeof SAMPLES])),
  );
  assert.deepEqual(raster, ['jpeg', 'png', 'gif', 'webp', 'tiff', 'heif']);
  assert.equal(isRasterSignature(undefined), false);
});

test('media types are compared without case or parameters; unlisted ones name no signature', () => {
  assert.equal(signatureOfMediaType(' Image/PNG ; foo=bar'), 'png');
  assert.equal(signatureOfMediaType('image/jpg'), 'jpeg');
  assert.equal(signatureOfMediaType('image/heic'), 'heif');
  assert.equal(signatureOfMediaType('application/octet-stream'), undefined);
  assert.equal(signatureOfMediaType(''), undefined);
});

test('a contradiction needs a listed type and bytes of another listed format', () => {
  assert.equal(contradictedSignature('image/png', SAMPLES.jpeg), 'jpeg');
  assert.equal(contradictedSignature('image/svg+xml', SAMPLES.png), 'png');
  assert.equal(contradictedSignature('application/pdf', SAMPLES.svg), 'svg');
  assert.equal(contradictedSignature('image/jpeg', SAMPLES.jpeg), undefined);
  assert.equal(contradictedSignature('image/avif', SAMPLES.heif), undefined);
  assert.equal(contradictedSignature('image/png', bytes('kaputt')), undefined, 'unrecognisable bytes');
  assert.equal(contradictedSignature('text/plain', SAMPLES.jpeg), undefined, 'an unlisted type');
});
