import assert from 'node:assert/strict';
import { test } from 'node:test';
import { colourHex, DEFAULT_BACKGROUND, paddingFor, parseColour } from './colour.ts';

test('parseColour reads the four hex notations, and nothing else', () => {
  assert.deepEqual(parseColour('#fff'), { r: 255, g: 255, b: 255, alpha: 1 });
  assert.deepEqual(parseColour('#0f08'), { r: 0, g: 255, b: 0, alpha: 0x88 / 255 });
  assert.deepEqual(parseColour(' #336699 '), { r: 0x33, g: 0x66, b: 0x99, alpha: 1 });
  assert.deepEqual(parseColour('#FFFFFF00'), { r: 255, g: 255, b: 255, alpha: 0 });
  for (const bad of ['white', 'fff', '#ff', '#fffff', '#gggggg', 'rgb(0,0,0)', ''])
    assert.equal(parseColour(bad), undefined, bad);
});

test('colourHex spells each colour one way', () => {
  assert.equal(colourHex(parseColour('#ABC')!), '#aabbccff');
  assert.equal(colourHex(DEFAULT_BACKGROUND), '#ffffff00');
});

test('the default is transparent where the format has alpha and white in JPEG', () => {
  assert.equal(paddingFor(DEFAULT_BACKGROUND, 'png').alpha, 0);
  assert.equal(paddingFor(DEFAULT_BACKGROUND, 'gif').alpha, 0);
  assert.deepEqual(paddingFor(DEFAULT_BACKGROUND, 'jpeg'), { r: 255, g: 255, b: 255, alpha: 1 });
});
