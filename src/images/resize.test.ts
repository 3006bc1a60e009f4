/**
 * The sharp pipeline on generated images, checked by pixels: every mode's dimensions and
 * sampled colours (padding, cut-away corners), orientation, metadata, formats, limits.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  assertColour,
  BLUE,
  bands,
  decode,
  encodeRaw,
  GREEN,
  halves,
  pngBomb,
  pngChunk,
  RED,
  type Rgb,
  type Rgba,
  rawImage,
  TEST_RESIZE_LIMITS,
  YELLOW,
} from '../../test/support/images.ts';
import { ScoopError } from '../contract/errors.ts';
import type { ResizeMode } from '../contract/types.ts';
import { parseColour } from './colour.ts';
import { planFor } from './modes.ts';
import { resizeImage } from './resize.ts';

const LIMITS = TEST_RESIZE_LIMITS;
const GPS = {
  GPSLatitudeRef: 'N',
  GPSLatitude: '52/1 31/1 12/1',
  GPSLongitudeRef: 'E',
  GPSLongitude: '13/1 24/1 0/1',
};
const XMP =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>';
/** PNG chunks that carry metadata: text in three encodings, EXIF, ICC, time. */
const METADATA_CHUNKS = ['tEXt', 'zTXt', 'iTXt', 'eXIf', 'iCCP', 'tIME'];

/** The chunk types of a PNG, in order. */
function pngChunkTypes(png: Uint8Array): string[] {
  const bytes = Buffer.from(png);
  const types: string[] = [];
  for (let at = 8; at + 8 <= bytes.length; at += 12 + bytes.readUInt32BE(at)) {
    types.push(bytes.toString('latin1', at + 4, at + 8));
  }
  return types;
}

/** The chunk FourCCs of a WebP (a RIFF file), in order. */
function webpChunkTypes(webp: Uint8Array): string[] {
  const bytes = Buffer.from(webp);
  assert.equal(bytes.toString('latin1', 8, 12), 'WEBP');
  const types: string[] = [];
  for (let at = 12; at + 8 <= bytes.length; ) {
    const size = bytes.readUInt32LE(at + 4);
    types.push(bytes.toString('latin1', at, at + 4));
    at += 8 + size + (size % 2);
  }
  return types;
}

/** Quadrants: red top left, green top right, blue bottom left, yellow bottom right. */
function quadrants(width: number, height: number): Promise<Buffer> {
  const colourAt = (x: number, y: number) =>
    y < height / 2 ? (x < width / 2 ? RED : GREEN) : x < width / 2 ? BLUE : YELLOW;
  return encodeRaw(rawImage(width, height, colourAt), width, height, 'png');
}
const WHITE = [255, 255, 255] as const;

function resize(input: Buffer, width: number, height: number, modes: ResizeMode[], limits = LIMITS) {
  return resizeImage(input, { width, height, plan: planFor(modes) }, limits);
}

async function refused(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof ScoopError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
}

function assertTransparent(actual: Rgba, where: string): void {
  assert.equal(actual[3], 0, `${where} should be transparent, got ${JSON.stringify(actual)}`);
}

type Sample = readonly [x: number, y: number, colour: Rgb | 'transparent', where: string];

interface ModeCase {
  readonly title: string;
  readonly modes: ResizeMode[];
  readonly box: readonly [width: number, height: number];
  readonly size: readonly [width: number, height: number];
  readonly samples: readonly Sample[];
}

/** The source: 200×100, bands red | green | blue (a quarter, a half, a quarter). */
const MODE_CASES: readonly ModeCase[] = [
  {
    title: 'standard fits inside, all three bands kept',
    modes: ['standard'],
    box: [100, 100],
    size: [100, 50],
    samples: [
      [2, 25, RED, 'left edge'],
      [50, 25, GREEN, 'middle'],
      [97, 25, BLUE, 'right edge'],
    ],
  },
  { title: 'standard never enlarges', modes: ['standard'], box: [400, 400], size: [200, 100], samples: [] },
  {
    title: 'fit enlarges to fit inside',
    modes: ['fit'],
    box: [400, 400],
    size: [400, 200],
    samples: [
      [5, 100, RED, 'left edge'],
      [395, 100, BLUE, 'right edge'],
    ],
  },
  {
    title: 'crop is exactly the box, the overflow cut centred: the red and blue corners are gone',
    modes: ['crop'],
    box: [100, 100],
    size: [100, 100],
    samples: [
      [0, 0, GREEN, 'top left'],
      [99, 0, GREEN, 'top right'],
      [0, 99, GREEN, 'bottom left'],
      [99, 99, GREEN, 'bottom right'],
    ],
  },
  {
    title: 'crop enlarges to cover, then cuts top and bottom',
    modes: ['crop'],
    box: [400, 50],
    size: [400, 50],
    samples: [
      [2, 0, RED, 'top left'],
      [397, 49, BLUE, 'bottom right'],
    ],
  },
  {
    title: 'stretch is exactly the box, aspect ignored: bands squeezed to half the width, not cut',
    modes: ['stretch'],
    box: [100, 100],
    size: [100, 100],
    samples: [
      [5, 5, RED, 'top left'],
      [20, 50, RED, 'x=20, red ends near 25'],
      [30, 50, GREEN, 'x=30'],
      [95, 95, BLUE, 'bottom right'],
    ],
  },
  {
    title: 'background fits inside and pads to the box, transparent in PNG',
    modes: ['background'],
    box: [100, 100],
    size: [100, 100],
    samples: [
      [50, 0, 'transparent', 'top padding'],
      [50, 24, 'transparent', 'last padding row above'],
      [2, 26, RED, 'image, left'],
      [97, 73, BLUE, 'image, right'],
      [50, 76, 'transparent', 'bottom padding'],
    ],
  },
  {
    title: 'background does not enlarge a smaller image, only pads it (200×100 centred)',
    modes: ['background'],
    box: [400, 400],
    size: [400, 400],
    samples: [
      [99, 200, 'transparent', 'left of the image'],
      [102, 200, RED, 'image left edge at x=100'],
      [297, 200, BLUE, 'image right edge at x=299'],
      [300, 200, 'transparent', 'right of the image'],
      [200, 149, 'transparent', 'above the image'],
      [200, 150, GREEN, 'image top at y=150'],
    ],
  },
  {
    title: 'fit with background enlarges to 400×200, then pads',
    modes: ['fit', 'background'],
    box: [400, 400],
    size: [400, 400],
    samples: [
      [200, 99, 'transparent', 'above'],
      [5, 200, RED, 'image left edge at x=0'],
    ],
  },
  {
    title: 'crop wins over background: background does not pad crop',
    modes: ['crop', 'background'],
    box: [100, 100],
    size: [100, 100],
    samples: [[0, 0, GREEN, 'corner']],
  },
  {
    title: 'a 0 height is derived from the aspect ratio: nothing to cut',
    modes: ['crop'],
    box: [50, 0],
    size: [50, 25],
    samples: [[1, 12, RED, 'left edge']],
  },
  {
    title: 'a 0 width is derived from the aspect ratio',
    modes: ['stretch'],
    box: [0, 40],
    size: [80, 40],
    samples: [],
  },
];

describe('each mode, on a 200×100 PNG of red | green | blue bands', () => {
  let source: Buffer;
  before(async () => {
    source = await bands(200, 100);
  });

  for (const c of MODE_CASES) {
    test(`${c.modes.join('+')} ${c.box.join('×')}: ${c.title}`, async () => {
      const out = await decode((await resize(source, c.box[0], c.box[1], c.modes)).bytes);
      assert.deepEqual([out.width, out.height], c.size);
      for (const [x, y, colour, where] of c.samples) {
        if (colour === 'transparent') assertTransparent(out.pixel(x, y), where);
        else assertColour(out.pixel(x, y), colour, where);
      }
    });
  }
});

describe('background colour', () => {
  test('JPEG padding is white by default (JPEG has no alpha)', async () => {
    const out = await decode((await resize(await bands(200, 100, 'jpeg'), 100, 100, ['background'])).bytes);
    assert.equal(out.format, 'jpeg');
    assertColour(out.pixel(50, 5), WHITE, 'top padding');
    assertColour(out.pixel(50, 50), GREEN, 'image');
  });

  test('a configured opaque colour pads every format', async () => {
    const limits = { ...LIMITS, background: parseColour('#ff00ff')! };
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const out = await decode(
        (await resize(await bands(200, 100, format), 100, 100, ['background'], limits)).bytes,
      );
      assertColour(out.pixel(50, 5), [255, 0, 255], `${format} padding`);
    }
  });

  test('GIF and WebP padding is transparent by default', async () => {
    for (const format of ['gif', 'webp'] as const) {
      const out = await decode((await resize(await bands(200, 100, format), 100, 100, ['background'])).bytes);
      assert.equal(out.format, format);
      assertTransparent(out.pixel(50, 5), `${format} padding`);
    }
  });
});

describe('orientation, metadata, formats', () => {
  // Stored 40×20 in quadrants (red, green / blue, yellow); where each lands once displayed.
  const ORIENTED: ReadonlyArray<readonly [orientation: number, turn: string, corners: readonly Rgb[]]> = [
    [3, 'turned 180°', [YELLOW, BLUE, GREEN, RED]],
    [6, 'turned 90° clockwise', [BLUE, RED, YELLOW, GREEN]],
    [8, 'turned 90° anticlockwise', [GREEN, YELLOW, RED, BLUE]],
  ];
  for (const [orientation, turn, corners] of ORIENTED) {
    test(`EXIF orientation ${orientation} is applied (${turn}) before resizing, and not kept`, async () => {
      const stored = await sharp(await quadrants(40, 20))
        .withMetadata({ orientation })
        .jpeg({ quality: 95 })
        .toBuffer();
      assert.equal((await sharp(stored).metadata()).orientation, orientation);
      const upright = orientation === 3 ? [20, 10] : [10, 20];
      const resized = await resize(stored, upright[0]!, upright[1]!, ['stretch']);
      const out = await decode(resized.bytes);
      assert.deepEqual([out.width, out.height], upright);
      const [w, h] = [out.width - 2, out.height - 2];
      const names = ['top left', 'top right', 'bottom left', 'bottom right'];
      [out.pixel(1, 1), out.pixel(w, 1), out.pixel(1, h), out.pixel(w, h)].forEach((pixel, i) => {
        assertColour(pixel, corners[i]!, names[i]!);
      });
      assert.equal((await sharp(resized.bytes).metadata()).orientation, undefined);
    });
  }

  test('a PNG with text chunks, eXIf and XMP comes back without any of them', async () => {
    const withExif = await sharp(await halves(64, 48))
      .withExif({ IFD0: { Artist: 'A. Beispiel' }, IFD3: GPS })
      .withXmp(XMP)
      .png()
      .toBuffer();
    // sharp writes EXIF as eXIf and XMP as zTXt; add plain text chunks as an editor would.
    const idat = withExif.indexOf('IDAT') - 4;
    const stored = Buffer.concat([
      withExif.subarray(0, idat),
      pngChunk('tEXt', Buffer.from('Author\0A. Beispiel', 'latin1')),
      pngChunk('iTXt', Buffer.from('Description\0\0\0\0\0Marktplatz, 52.52 N 13.40 E', 'utf8')),
      withExif.subarray(idat),
    ]);
    const before = await sharp(stored).metadata();
    assert.ok(before.exif && before.xmp, 'the source carries EXIF and XMP');
    assert.equal(before.comments?.length, 2);
    assert.deepEqual(
      pngChunkTypes(stored).filter((type) => METADATA_CHUNKS.includes(type)),
      ['eXIf', 'zTXt', 'tEXt', 'iTXt'],
    );
    const resized = await resize(stored, 32, 0, ['standard']);
    assert.equal(resized.format, 'png');
    const after = await sharp(resized.bytes).metadata();
    assert.deepEqual([after.exif, after.xmp, after.comments], [undefined, undefined, undefined]);
    assert.deepEqual(
      pngChunkTypes(resized.bytes).filter((type) => METADATA_CHUNKS.includes(type)),
      [],
    );
    for (const text of ['Beispiel', 'GPS', 'Marktplatz']) assert.equal(resized.bytes.indexOf(text), -1, text);
  });

  test('a WebP with EXIF GPS tags, XMP and an ICC profile comes back without any of them', async () => {
    const stored = await sharp(await halves(64, 48))
      .withExif({ IFD0: { Artist: 'A. Beispiel' }, IFD3: GPS })
      .withXmp(XMP)
      .withIccProfile('p3')
      .webp()
      .toBuffer();
    const before = await sharp(stored).metadata();
    assert.ok(before.exif && before.xmp && before.icc, 'the source carries EXIF, XMP and ICC');
    assert.deepEqual(
      webpChunkTypes(stored).filter((type) => type !== 'VP8X' && !type.startsWith('VP8')),
      ['ICCP', 'EXIF', 'XMP '],
    );
    const resized = await resize(stored, 32, 0, ['standard']);
    assert.equal(resized.format, 'webp');
    const after = await sharp(resized.bytes).metadata();
    assert.deepEqual([after.exif, after.xmp, after.icc], [undefined, undefined, undefined]);
    assert.deepEqual(
      webpChunkTypes(resized.bytes).filter((type) => ['ICCP', 'EXIF', 'XMP '].includes(type)),
      [],
    );
    for (const text of ['Beispiel', 'GPS', 'xmpmeta']) assert.equal(resized.bytes.indexOf(text), -1, text);
  });

  test('a JPEG with EXIF GPS tags, XMP and an ICC profile comes back without any of them', async () => {
    const stored = await sharp(await halves(64, 48, 'jpeg'))
      .withExif({
        IFD0: { Copyright: 'Stadt Beispiel', Artist: 'A. Beispiel' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '52/1 31/1 12/1',
          GPSLongitudeRef: 'E',
          GPSLongitude: '13/1 24/1 0/1',
        },
      })
      .withXmp(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>',
      )
      .withIccProfile('p3')
      .jpeg()
      .toBuffer();
    const before = await sharp(stored).metadata();
    assert.ok(before.exif && before.xmp && before.icc, 'the source carries EXIF, XMP and ICC');
    const resized = await resize(stored, 32, 0, ['standard']);
    const after = await sharp(resized.bytes).metadata();
    assert.equal(after.exif, undefined);
    assert.equal(after.xmp, undefined);
    assert.equal(after.icc, undefined);
    assert.equal(after.iptc, undefined);
    assert.equal(resized.bytes.indexOf('Exif'), -1);
    assert.equal(resized.bytes.indexOf('GPS'), -1);
  });

  test('the source format is kept: JPEG, PNG, WebP, GIF, TIFF, AVIF (each known by its signature)', async () => {
    // With SVG off, what is given to libvips at all is decided by the first bytes first.
    const rasterOnly = { ...LIMITS, svg: false };
    for (const format of ['jpeg', 'png', 'webp', 'gif', 'tiff'] as const) {
      const resized = await resize(await bands(40, 20, format), 20, 10, ['stretch'], rasterOnly);
      assert.equal(resized.format, format);
      assert.equal((await sharp(resized.bytes).metadata()).format, format);
    }
    const avif = await sharp(await bands(40, 20))
      .avif()
      .toBuffer();
    const resized = await resize(avif, 20, 10, ['stretch'], rasterOnly);
    assert.equal(resized.format, 'avif');
    assert.deepEqual([resized.width, resized.height], [20, 10]);
  });

  for (const format of ['gif', 'webp'] as const) {
    test(`an animated ${format === 'gif' ? 'GIF' : 'WebP'} gives its first frame`, async () => {
      const frame = (colour: readonly [number, number, number]) => rawImage(20, 10, () => colour);
      const animated = await sharp(Buffer.concat([frame(RED), frame(YELLOW), frame(BLUE)]), {
        raw: { width: 20, height: 30, channels: 3, pageHeight: 10 },
      })
        .toFormat(format)
        .toBuffer();
      assert.equal((await sharp(animated).metadata()).pages, 3);
      const resized = await resize(animated, 10, 0, ['standard']);
      const meta = await sharp(resized.bytes).metadata();
      assert.deepEqual([meta.format, meta.pages ?? 1, meta.width, meta.height], [format, 1, 10, 5]);
      assertColour((await decode(resized.bytes)).pixel(5, 2), RED, 'first frame');
    });
  }

  test('an SVG is rendered and written as PNG', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="#00ff00"/></svg>',
    );
    const resized = await resize(svg, 40, 0, ['standard']);
    assert.equal(resized.format, 'png');
    const out = await decode(resized.bytes);
    assert.deepEqual([out.width, out.height], [40, 20]);
    assertColour(out.pixel(20, 10), GREEN, 'fill');
  });
});

describe('limits', () => {
  test('a source over the pixel limit is refused as IMAGE_TOO_LARGE; at the limit it is resized', async () => {
    const source = await bands(100, 100);
    const limits = (maxPixels: number) => ({ ...LIMITS, maxPixels });
    await refused(
      resize(source, 10, 10, ['crop'], limits(9_999)),
      'IMAGE_TOO_LARGE',
      /100×100 pixels, more than the 9999/,
    );
    assert.equal((await resize(source, 10, 10, ['crop'], limits(10_000))).width, 10);
  });

  test('a decompression bomb (30000×30000 declared in ~110 KB) is refused without decoding it', async () => {
    const bomb = await pngBomb(30_000);
    assert.ok(bomb.length < 200_000, `${bomb.length} bytes`);
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    await refused(resize(bomb, 100, 100, ['standard']), 'IMAGE_TOO_LARGE', /30000×30000 pixels/);
    const ms = performance.now() - started;
    const grownMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    // Decoding it would take 900 MB (8 bits per pixel) and seconds; refusing takes neither.
    assert.ok(grownMb < 50, `RSS grew by ${grownMb.toFixed(1)} MB`);
    assert.ok(ms < 1000, `${ms.toFixed(0)} ms`);
  });

  test('bytes that are not an image are IMAGE_NOT_RESIZABLE', async () => {
    await refused(
      resize(Buffer.from('%PDF-1.4 not an image'), 10, 10, []),
      'IMAGE_NOT_RESIZABLE',
      /cannot be decoded/,
    );
  });

  test('a truncated image is IMAGE_NOT_RESIZABLE, not an internal error', async () => {
    const png = await bands(200, 100);
    await refused(resize(png.subarray(0, 120), 10, 10, []), 'IMAGE_NOT_RESIZABLE', /cannot be decoded/);
  });
});
