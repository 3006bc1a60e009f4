/**
 * Generated test images with regions of known colours, and pixel sampling, so image
 * tests compare pixels rather than only dimensions.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createDeflate } from 'node:zlib';
import sharp from 'sharp';
import { DEFAULT_BACKGROUND } from '../../src/images/colour.ts';
import type { ImageSettings } from '../../src/images/image-settings.ts';
import type { ResizeLimits } from '../../src/images/resize.ts';

/** The resize limits of the unit tests: the defaults, with SVG on. */
export const TEST_RESIZE_LIMITS: ResizeLimits = {
  maxPixels: 40_000_000,
  maxDimension: 4096,
  background: DEFAULT_BACKGROUND,
  timeoutSeconds: 10,
  svg: true,
};

export type Rgb = readonly [number, number, number];
export type Rgba = readonly [number, number, number, number];

export const RED: Rgb = [255, 0, 0];
export const GREEN: Rgb = [0, 255, 0];
export const BLUE: Rgb = [0, 0, 255];
export const YELLOW: Rgb = [255, 255, 0];

/** Raw RGB pixels where `colourAt(x, y)` decides each pixel. */
export function rawImage(width: number, height: number, colourAt: (x: number, y: number) => Rgb): Buffer {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(colourAt(x, y), (y * width + x) * 3);
  }
  return data;
}

export function encodeRaw(
  data: Buffer,
  width: number,
  height: number,
  format: 'png' | 'jpeg' | 'webp' | 'gif' | 'tiff',
): Promise<Buffer> {
  return sharp(data, { raw: { width, height, channels: 3 } })
    .toFormat(format, format === 'jpeg' ? { quality: 95 } : {})
    .toBuffer();
}

/**
 * Three vertical bands: red left quarter, green middle half, blue right quarter — so a
 * crop to the middle loses red and blue, and a stretch keeps all three.
 */
export function bands(
  width: number,
  height: number,
  format: 'png' | 'jpeg' | 'webp' | 'gif' | 'tiff' = 'png',
) {
  const raw = rawImage(width, height, (x) => (x < width / 4 ? RED : x >= (width * 3) / 4 ? BLUE : GREEN));
  return encodeRaw(raw, width, height, format);
}

/** Left half red, right half blue. */
export function halves(width: number, height: number, format: 'png' | 'jpeg' = 'png') {
  return encodeRaw(
    rawImage(width, height, (x) => (x < width / 2 ? RED : BLUE)),
    width,
    height,
    format,
  );
}

export interface Decoded {
  readonly format: string;
  readonly width: number;
  readonly height: number;
  pixel(x: number, y: number): Rgba;
}

/** Decodes to RGBA (opaque formats get alpha 255) for sampling. */
export async function decode(bytes: Uint8Array): Promise<Decoded> {
  const { format } = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    format,
    width: info.width,
    height: info.height,
    pixel(x, y) {
      const i = (y * info.width + x) * 4;
      return [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
    },
  };
}

/** Each channel within `tolerance` (JPEG is lossy; scaling blends edges). */
export function assertColour(actual: Rgba, expected: Rgb | Rgba, message: string, tolerance = 24): void {
  const full = expected.length === 3 ? [...expected, 255] : [...expected];
  const off = actual.some((v, i) => Math.abs(v - full[i]!) > tolerance);
  assert.ok(!off, `${message}: expected ≈${JSON.stringify(full)}, got ${JSON.stringify(actual)}`);
}

/** One PNG chunk: length, type, data and CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A decompression bomb: a valid PNG declaring `side`×`side` pixels of one colour
 * (1-bit greyscale, all zero), which deflate shrinks about a thousandfold. The raw rows
 * are streamed through deflate, so the test process never holds them whole.
 */
export async function pngBomb(side: number): Promise<Buffer> {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, no filter, no interlace
  const rawBytes = side * (1 + Math.ceil(side / 8)); // each row: a filter byte and its bits
  const deflate = createDeflate({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => out.push(chunk));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let left = rawBytes; left > 0; left -= zeros.length) {
    if (!deflate.write(zeros.subarray(0, Math.min(left, zeros.length)))) await once(deflate, 'drain');
  }
  deflate.end();
  await done;
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    pngChunk('IHDR', header),
    pngChunk('IDAT', Buffer.concat(out)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A few hundred bytes of SVG that keep librsvg busy for long (the review's was 6000×6000
 * with a blur of 500: 128 s, 2.3 GB): turbulence of 20 octaves, then a wide blur.
 */
export function hostileSvg(size: number, blur: number): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">` +
      `<filter id="f"><feTurbulence baseFrequency="0.01" numOctaves="20"/><feGaussianBlur stdDeviation="${blur}"/></filter>` +
      `<rect width="100%" height="100%" filter="url(#f)"/></svg>`,
  );
}

/** Image settings for tests: two resize slots, a short queue, no variant folder unless a test gives one. */
export const TEST_IMAGE_SETTINGS: ImageSettings = {
  concurrency: 2,
  maxWaiting: 8,
  maxPixels: 40_000_000,
  cacheDir: undefined,
  cacheBytes: 64 * 1024 * 1024,
  background: { r: 255, g: 255, b: 255, alpha: 0 },
  timeoutSeconds: 10,
  svg: false,
};
