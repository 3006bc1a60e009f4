import assert from 'node:assert/strict';
import { test } from 'node:test';
import { filenameFor, outputFormatFor } from './formats.ts';

test('the source format is kept; SVG becomes PNG; AVIF only among HEIF; others are not resized', () => {
  for (const format of ['jpeg', 'png', 'webp', 'gif', 'tiff'])
    assert.equal(outputFormatFor(format, undefined), format);
  assert.equal(outputFormatFor('heif', 'av1'), 'avif');
  assert.equal(outputFormatFor('heif', 'hevc'), undefined);
  assert.equal(outputFormatFor('svg', undefined), 'png');
  for (const format of ['pdf', 'magick', 'vips', 'raw', 'jp2'])
    assert.equal(outputFormatFor(format, undefined), undefined);
});

test('filenameFor changes the extension only when it names another format', () => {
  assert.equal(filenameFor('rathaus.JPG', 'jpeg'), 'rathaus.JPG');
  assert.equal(filenameFor('rathaus.jpeg', 'jpeg'), 'rathaus.jpeg');
  assert.equal(filenameFor('plan.svg', 'png'), 'plan.png');
  assert.equal(filenameFor('ohne-endung', 'png'), 'ohne-endung');
  assert.equal(filenameFor('.hidden', 'png'), '.hidden');
  assert.equal(filenameFor(null, 'png'), null);
});
