/**
 * What bounds a resize's cost: SVG is not handed to libvips unless enabled, and a resize
 * running past its timeout is given up (docs/images.md#limits).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hostileSvg, TEST_RESIZE_LIMITS } from '../../test/support/images.ts';
import { ScoopError } from '../contract/errors.ts';
import { planFor } from './modes.ts';
import { type ResizeLimits, resizeImage } from './resize.ts';

const LIMITS = TEST_RESIZE_LIMITS;

function resize(input: Buffer, width: number, height: number, limits: ResizeLimits) {
  return resizeImage(input, { width, height, plan: planFor([]) }, limits);
}

async function refused(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ScoopError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

describe('resize bounds', () => {
  test('an SVG is not rasterised unless SVG resizing is on, nor even parsed', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    await refused(
      resize(svg, 5, 5, { ...LIMITS, svg: false }),
      'IMAGE_NOT_RESIZABLE',
      /SVG is rasterised only with SCOOP_RESIZE_SVG=on/,
    );
    // 200,000 circles, 12 MB: libvips takes 1.5 s and 500 MB to read its header alone.
    const circles = Array.from(
      { length: 200_000 },
      (_, i) =>
        `<circle cx="${(i * 37) % 2000}" cy="${(i * 91) % 2000}" r="${5 + (i % 40)}" fill="#a0c0e0"/>`,
    );
    const large = Buffer.from(
      `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000">${circles.join('')}</svg>`,
    );
    const started = performance.now();
    await refused(resize(large, 100, 100, { ...LIMITS, svg: false }), 'IMAGE_NOT_RESIZABLE', /SVG/);
    const ms = performance.now() - started;
    assert.ok(ms < 500, `${ms.toFixed(0)} ms`);
  });

  test('a resize running past the timeout is refused as IMAGE_TOO_COMPLEX', async (t) => {
    // Unbounded this takes 20 s and more; libvips checks the clock between the regions
    // librsvg renders, each seconds long for this one, so a 1 s timeout ends it in ~5 s
    // on a quiet machine. The time is shown, not asserted: this machine is shared.
    const started = performance.now();
    await refused(
      resize(hostileSvg(3000, 200), 3000, 0, { ...LIMITS, timeoutSeconds: 1 }),
      'IMAGE_TOO_COMPLEX',
      /more than the 1 s allowed/,
    );
    t.diagnostic(`refused after ${(performance.now() - started).toFixed(0)} ms`);
  });
});
