/**
 * Renders the gallery of docs/images.md: one generated source picture, resized in every
 * mode at two box sizes by the service's own pipeline, as PNG files in docs/images/.
 * `test/image-gallery.test.ts` renders it again and compares, so the pictures in the
 * docs are what the service does.
 *
 *   npm run docs:images            (writes docs/images/)
 *   node --import tsx scripts/make-image-gallery.ts <dir>
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import type { ResizeMode } from '../src/contract/types.ts';
import { parseColour } from '../src/images/colour.ts';
import { planFor } from '../src/images/modes.ts';
import { type ResizeLimits, resizeImage } from '../src/images/resize.ts';

export const GALLERY_DIR = 'docs/images';

/** A smaller square box, and a larger box wider than the source's 3:2. */
export const BOXES = [
  { width: 120, height: 120 },
  { width: 360, height: 200 },
] as const;

export const GALLERY_MODES: ReadonlyArray<{ readonly file: string; readonly modes: ResizeMode[] }> = [
  { file: 'standard', modes: ['standard'] },
  { file: 'fit', modes: ['fit'] },
  { file: 'crop', modes: ['crop'] },
  { file: 'stretch', modes: ['stretch'] },
  { file: 'background', modes: ['background'] },
  { file: 'fit-background', modes: ['fit', 'background'] },
];

/** Grey rather than the PNG default (transparent), so the padding shows on the page. */
const LIMITS: ResizeLimits = {
  maxPixels: 40_000_000,
  maxDimension: 4096,
  background: parseColour('#c8c8c8')!,
  timeoutSeconds: 10,
  svg: false,
};

type Rgb = readonly [number, number, number];

/**
 * A 240×160 picture drawn pixel by pixel (no fonts, no vector renderer, so nothing but
 * sharp's resize can change it): sky and grass, a sun near the top right corner, a red
 * house, and a dark frame, so cut edges, padding and distortion are easy to see.
 */
export function sourcePixels(): { data: Buffer; width: number; height: number } {
  const width = 240;
  const height = 160;
  const data = Buffer.alloc(width * height * 3);
  const colourAt = (x: number, y: number): Rgb => {
    if (x < 4 || y < 4 || x >= width - 4 || y >= height - 4) return [34, 34, 34];
    if ((x - 200) ** 2 + (y - 36) ** 2 <= 18 ** 2) return [255, 204, 0];
    const roofTop = 58;
    if (y >= roofTop && y < 80 && Math.abs(x - 80) <= (y - roofTop) * 1.6) return [120, 40, 30];
    if (x >= 50 && x <= 110 && y >= 80 && y <= 124) {
      if (x >= 72 && x <= 88 && y >= 100) return [90, 60, 30];
      return [200, 40, 40];
    }
    return y < 108 ? [135, 206, 235] : [60, 176, 67];
  };
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) data.set(colourAt(x, y), (y * width + x) * 3);
  return { data, width, height };
}

export async function sourcePng(): Promise<Buffer> {
  const { data, width, height } = sourcePixels();
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/** Writes source.png and one PNG per mode and box into `dir`; returns the file names. */
export async function renderGallery(dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const source = await sourcePng();
  const written = ['source.png'];
  writeFileSync(path.join(dir, 'source.png'), source);
  for (const box of BOXES) {
    for (const { file, modes } of GALLERY_MODES) {
      const resized = await resizeImage(source, { ...box, plan: planFor(modes) }, LIMITS);
      const name = `${file}-${box.width}x${box.height}.png`;
      writeFileSync(path.join(dir, name), resized.bytes);
      written.push(name);
    }
  }
  return written;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = process.argv[2] ?? GALLERY_DIR;
  const files = await renderGallery(dir);
  process.stdout.write(`Wrote ${files.length} images to ${dir}\n`);
}
