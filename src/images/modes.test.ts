import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ResizeMode } from '../contract/types.ts';
import { planFor, planName } from './modes.ts';

const name = (modes: ResizeMode[]) => planName(planFor(modes));

describe('planFor: the precedence rule of docs/images.md', () => {
  test('each mode alone', () => {
    assert.equal(name(['standard']), 'standard');
    assert.equal(name(['fit']), 'fit');
    assert.equal(name(['crop']), 'crop');
    assert.equal(name(['stretch']), 'stretch');
    // background alone pads a standard resize: no enlargement.
    assert.equal(name(['background']), 'standard+background');
  });

  test('an empty list is standard', () => {
    assert.deepEqual(planFor([]), { shape: 'standard', pad: false });
  });

  test('among crop, stretch, fit and standard the first listed decides', () => {
    assert.equal(name(['crop', 'stretch']), 'crop');
    assert.equal(name(['stretch', 'crop']), 'stretch');
    assert.equal(name(['standard', 'fit']), 'standard');
    assert.equal(name(['fit', 'standard', 'crop']), 'fit');
    assert.equal(name(['crop', 'fit', 'stretch', 'standard']), 'crop');
  });

  test('background pads standard and fit wherever it is listed', () => {
    assert.equal(name(['background', 'standard']), 'standard+background');
    assert.equal(name(['standard', 'background']), 'standard+background');
    assert.equal(name(['background', 'fit']), 'fit+background');
    assert.equal(name(['fit', 'background', 'crop']), 'fit+background');
  });

  test('background changes nothing for crop and stretch, which fill the box already', () => {
    assert.deepEqual(planFor(['crop', 'background']), { shape: 'crop', pad: false });
    assert.deepEqual(planFor(['background', 'stretch']), { shape: 'stretch', pad: false });
  });

  test('repeats do not matter', () => {
    assert.equal(name(['crop', 'crop', 'background', 'background']), 'crop');
    assert.equal(name(['background', 'background']), 'standard+background');
  });
});
