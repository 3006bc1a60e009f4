/**
 * The gallery in docs/images/ is what the pipeline makes today: rendered again into a
 * scratch folder and compared file by file. Bytes are compared first; should a PNG
 * encoder build ever compress differently, decoded pixels must still match (±2 per
 * channel, for SIMD rounding), so the check stays about the pictures, not zlib.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { GALLERY_DIR, renderGallery } from '../scripts/make-image-gallery.ts';
import { scratch } from './support/bundles.ts';

const s = scratch();
const FIX = 'run `npm run docs:images` and review the pictures';

async function samePixels(a: Buffer, b: Buffer): Promise<string | undefined> {
  const [x, y] = await Promise.all(
    [a, b].map((bytes) => sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true })),
  );
  if (x!.info.width !== y!.info.width || x!.info.height !== y!.info.height)
    return `${x!.info.width}×${x!.info.height} vs ${y!.info.width}×${y!.info.height}`;
  const worst = x!.data.reduce((max, v, i) => Math.max(max, Math.abs(v - y!.data[i]!)), 0);
  return worst <= 2 ? undefined : `pixels differ by up to ${worst}`;
}

test('docs/images/ holds exactly the gallery the pipeline renders now', async () => {
  const dir = s.dir();
  const rendered = (await renderGallery(dir)).sort();
  const committed = readdirSync(GALLERY_DIR)
    .filter((f) => f.endsWith('.png'))
    .sort();
  assert.deepEqual(committed, rendered, `the set of gallery files changed; ${FIX}`);
  for (const name of rendered) {
    const fresh = readFileSync(path.join(dir, name));
    const docs = readFileSync(path.join(GALLERY_DIR, name));
    if (fresh.equals(docs)) continue;
    const difference = await samePixels(fresh, docs);
    assert.equal(difference, undefined, `${name}: ${difference}; ${FIX}`);
  }
});
