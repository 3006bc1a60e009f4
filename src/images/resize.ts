/**
 * The resize pipeline (sharp, i.e. libvips): read the header, refuse what is too large or
 * not an image we resize, then in one pass apply the EXIF orientation, scale (and crop or
 * pad) as `layoutFor` says, and encode in the source's format without any metadata.
 */
import sharp, { type Metadata, type Sharp, type SharpOptions } from 'sharp';
import { ScoopError } from '../contract/errors.ts';
import { paddingFor, type Rgba } from './colour.ts';
import { hasRasterSignature, type OutputFormat, outputFormatFor } from './formats.ts';
import { boxFor, layoutFor } from './geometry.ts';
import type { ResizePlan } from './modes.ts';

export interface ResizeLimits {
  /** Sources with more pixels (by their header) are refused before decoding. */
  readonly maxPixels: number;
  /** Cap of a dimension derived from the other (geometry.ts `boxFor`). */
  readonly maxDimension: number;
  /** Padding colour of plans with `pad`. */
  readonly background: Rgba;
  /** libvips is told to give up after this many seconds (0: never); see `resizeImage`. */
  readonly timeoutSeconds: number;
  /** Whether SVG sources are rasterised at all (docs/images.md: off by default). */
  readonly svg: boolean;
}

export interface ResizeRequest {
  /** Pixels; 0 derives it from `height` (not both 0: that is not a resize). */
  readonly width: number;
  readonly height: number;
  readonly plan: ResizePlan;
}

export interface Resized {
  readonly bytes: Buffer;
  readonly format: OutputFormat;
  readonly width: number;
  readonly height: number;
}

export type Resizer = (input: Buffer, request: ResizeRequest, limits: ResizeLimits) => Promise<Resized>;

// libvips' operation cache pays off when one image is processed repeatedly; a server
// resizing distinct images only pays its memory. The variant cache does the caching.
sharp.cache(false);

const AS_STORED = 'width and height 0 return it as stored';

function inputOptions(limits: ResizeLimits): SharpOptions {
  return {
    // A second guard behind the header check below: libvips refuses to decode beyond it.
    limitInputPixels: limits.maxPixels,
    // Real-world JPEGs often carry harmless warnings; only real errors stop decoding.
    failOn: 'error',
    autoOrient: true,
  };
}

function encode(pipeline: Sharp, format: OutputFormat): Sharp {
  switch (format) {
    case 'jpeg':
      return pipeline.jpeg({ quality: 80 });
    case 'png':
      return pipeline.png();
    case 'webp':
      return pipeline.webp({ quality: 80 });
    case 'gif':
      return pipeline.gif();
    case 'tiff':
      return pipeline.tiff();
    case 'avif':
      // AVIF encoding is slow at the default effort; 2 keeps a resize slot short.
      return pipeline.avif({ effort: 2 });
  }
}

function tooComplex(limits: ResizeLimits): ScoopError {
  return new ScoopError(
    'IMAGE_TOO_COMPLEX',
    `The image took more than the ${limits.timeoutSeconds} s allowed to resize; ${AS_STORED}.`,
  );
}

/**
 * Whether a failed pipeline was stopped by sharp's `timeout`. Its message says so with a
 * line "timeout: N% complete", but libvips keeps one error buffer for the whole process,
 * which sharp reads and clears after a failure: with resizes failing at once on other
 * threads, that line can come after another's or be taken by another's error. So a failure
 * that came once the time allowed had passed counts as the timeout too (an image that
 * cannot be decoded fails at once). That time runs from when the pipeline is handed to
 * sharp, a moment before libvips' own clock starts: the resize slots (queue.ts) keep
 * libuv's pool from making it wait long.
 */
function isTimeout(error: unknown, startedAt: number, limits: ResizeLimits): boolean {
  if (error instanceof Error && /^timeout: /m.test(error.message)) return true;
  return limits.timeoutSeconds > 0 && performance.now() - startedAt >= limits.timeoutSeconds * 1000;
}

function undecodable(): ScoopError {
  return new ScoopError(
    'IMAGE_NOT_RESIZABLE',
    `The image data cannot be decoded, so it is not resized; ${AS_STORED}.`,
  );
}

export const resizeImage: Resizer = async (input, request, limits) => {
  if (!limits.svg && !hasRasterSignature(input)) {
    throw new ScoopError(
      'IMAGE_NOT_RESIZABLE',
      `The image data is not JPEG, PNG, WebP, GIF, TIFF or AVIF (SVG is rasterised only with SCOOP_RESIZE_SVG=on), so it cannot be decoded for resizing; ${AS_STORED}.`,
    );
  }
  const options = inputOptions(limits);
  let header: Metadata;
  try {
    // Reads the header only, nothing is decoded; the pixel limit is checked below, with
    // its own message (sharp's own check would throw a generic error here).
    header = await sharp(input, { ...options, limitInputPixels: false }).metadata();
  } catch {
    throw undecodable();
  }
  const format = outputFormatFor(header.format, header.compression);
  if (format === undefined) {
    throw new ScoopError(
      'IMAGE_NOT_RESIZABLE',
      `The image is ${header.format}, a format that is not resized; ${AS_STORED}.`,
    );
  }
  if (header.format === 'svg' && !limits.svg) {
    // A few hundred bytes of SVG filters can keep libvips busy for minutes and take
    // gigabytes, and the timeout below only stops it between regions (docs/images.md).
    throw new ScoopError(
      'IMAGE_NOT_RESIZABLE',
      `The image is SVG, which this server does not rasterise (SCOOP_RESIZE_SVG); ${AS_STORED}.`,
    );
  }
  if (header.width * header.height > limits.maxPixels) {
    throw new ScoopError(
      'IMAGE_TOO_LARGE',
      `The image has ${header.width}×${header.height} pixels, more than the ${limits.maxPixels} resized; ${AS_STORED}.`,
    );
  }
  const source = header.autoOrient ?? { width: header.width, height: header.height };
  const box = boxFor(source, request.width, request.height, limits.maxDimension);
  const layout = layoutFor(source, box, request.plan);
  // The clock starts when libvips opens the input; it is checked between the regions it
  // computes, so one slow region (an SVG filter) can overrun it.
  let pipeline = sharp(input, options).timeout({ seconds: limits.timeoutSeconds }).resize({
    width: layout.scaled.width,
    height: layout.scaled.height,
    fit: layout.fit,
    position: 'centre',
  });
  if (layout.canvas.width !== layout.scaled.width || layout.canvas.height !== layout.scaled.height) {
    pipeline = pipeline.extend({
      left: layout.left,
      top: layout.top,
      right: layout.canvas.width - layout.scaled.width - layout.left,
      bottom: layout.canvas.height - layout.scaled.height - layout.top,
      background: paddingFor(limits.background, format),
    });
  }
  const startedAt = performance.now();
  try {
    // sharp writes no metadata unless asked to (keepExif, withMetadata, …): no EXIF, no GPS, no XMP.
    const { data, info } = await encode(pipeline, format).toBuffer({ resolveWithObject: true });
    return { bytes: data, format, width: info.width, height: info.height };
  } catch (error) {
    throw isTimeout(error, startedAt, limits) ? tooComplex(limits) : undecodable();
  }
};

/**
 * Names this pipeline in variant cache keys: a change of encoder settings (bump the
 * number) or of sharp/libvips can change the bytes, so it makes new variants.
 */
export const RESIZE_PIPELINE = `scoop-1 sharp-${sharp.versions.sharp} vips-${sharp.versions.vips}`;
