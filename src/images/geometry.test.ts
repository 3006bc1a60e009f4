import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { boxFor, layoutFor } from './geometry.ts';
import type { ResizePlan } from './modes.ts';

const SOURCE = { width: 200, height: 100 };
const plan = (shape: ResizePlan['shape'], pad = false): ResizePlan => ({ shape, pad });

describe('boxFor', () => {
  test('both dimensions given: the box as asked', () => {
    assert.deepEqual(boxFor(SOURCE, 50, 70, 4096), { width: 50, height: 70 });
  });

  test('0 for one dimension derives it from the other by the aspect ratio', () => {
    assert.deepEqual(boxFor(SOURCE, 100, 0, 4096), { width: 100, height: 50 });
    assert.deepEqual(boxFor(SOURCE, 0, 30, 4096), { width: 60, height: 30 });
    assert.deepEqual(boxFor({ width: 3, height: 2 }, 0, 1, 4096), { width: 2, height: 1 });
  });

  test('a derived dimension is at least 1', () => {
    assert.deepEqual(boxFor({ width: 1000, height: 1 }, 10, 0, 4096), { width: 10, height: 1 });
  });

  test('a derived dimension over the maximum is capped and the given one shrinks in proportion', () => {
    assert.deepEqual(boxFor({ width: 10, height: 1000 }, 4096, 0, 4096), { width: 41, height: 4096 });
    assert.deepEqual(boxFor({ width: 1000, height: 10 }, 0, 100, 4096), { width: 4096, height: 41 });
  });
});

describe('layoutFor', () => {
  test('standard fits inside and never enlarges', () => {
    const down = layoutFor(SOURCE, { width: 100, height: 100 }, plan('standard'));
    assert.deepEqual(down.scaled, { width: 100, height: 50 });
    assert.deepEqual(down.canvas, { width: 100, height: 50 });
    const up = layoutFor(SOURCE, { width: 400, height: 400 }, plan('standard'));
    assert.deepEqual(up.canvas, SOURCE);
  });

  test('fit fits inside and enlarges', () => {
    assert.deepEqual(layoutFor(SOURCE, { width: 400, height: 400 }, plan('fit')).canvas, {
      width: 400,
      height: 200,
    });
  });

  test('crop covers the box exactly; stretch fills it exactly', () => {
    const crop = layoutFor(SOURCE, { width: 30, height: 90 }, plan('crop'));
    assert.equal(crop.fit, 'cover');
    assert.deepEqual(crop.canvas, { width: 30, height: 90 });
    const stretch = layoutFor(SOURCE, { width: 30, height: 90 }, plan('stretch'));
    assert.equal(stretch.fit, 'fill');
    assert.deepEqual(stretch.scaled, { width: 30, height: 90 });
  });

  test('padding centres the image, the odd pixel going right and down', () => {
    const padded = layoutFor(SOURCE, { width: 101, height: 101 }, plan('standard', true));
    assert.deepEqual(padded.scaled, { width: 101, height: 51 });
    assert.deepEqual(padded.canvas, { width: 101, height: 101 });
    assert.deepEqual([padded.left, padded.top], [0, 25]);
    const small = layoutFor(SOURCE, { width: 401, height: 400 }, plan('standard', true));
    assert.deepEqual(small.scaled, SOURCE);
    assert.deepEqual([small.left, small.top], [100, 150]);
  });

  test('rounding never leaves the box and never reaches 0', () => {
    const thin = layoutFor({ width: 10_000, height: 3 }, { width: 100, height: 100 }, plan('fit'));
    assert.deepEqual(thin.scaled, { width: 100, height: 1 });
    const odd = layoutFor({ width: 3, height: 2 }, { width: 100, height: 67 }, plan('fit'));
    assert.deepEqual(odd.scaled, { width: 100, height: 67 });
  });
});
