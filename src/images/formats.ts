/**
 * Which formats getBild resizes, and what a resized image is written as: the source's own
 * format where it can be written, PNG otherwise (docs/images.md). Pure.
 */
import { isRasterSignature, mediaSignature } from '../support/media-signature.ts';

export type OutputFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'tiff' | 'avif';

interface FormatInfo {
  readonly mimetype: string;
  /** The extension a renamed file gets, then the others that already name this format. */
  readonly extensions: readonly string[];
  /** Whether padding can be transparent. */
  readonly alpha: boolean;
}

export const FORMATS: Readonly<Record<OutputFormat, FormatInfo>> = {
  jpeg: { mimetype: 'image/jpeg', extensions: ['.jpg', '.jpeg', '.jpe', '.jfif'], alpha: false },
  png: { mimetype: 'image/png', extensions: ['.png'], alpha: true },
  webp: { mimetype: 'image/webp', extensions: ['.webp'], alpha: true },
  gif: { mimetype: 'image/gif', extensions: ['.gif'], alpha: true },
  tiff: { mimetype: 'image/tiff', extensions: ['.tif', '.tiff'], alpha: true },
  avif: { mimetype: 'image/avif', extensions: ['.avif'], alpha: true },
};

export function isOutputFormat(name: string): name is OutputFormat {
  return Object.hasOwn(FORMATS, name);
}

/**
 * The output format for a decoded source (the decoder's name as libvips reports it), or
 * undefined when the source is not one we resize. The list is deliberately short: every
 * decoder is attack surface, and these are the formats a CMS publishes.
 */
export function outputFormatFor(decoder: string, compression: string | undefined): OutputFormat | undefined {
  switch (decoder) {
    case 'jpeg':
    case 'png':
    case 'webp':
    case 'gif':
    case 'tiff':
      return decoder;
    case 'heif':
      // HEIF is a container; only its AV1 flavour (AVIF) can be decoded and written here.
      return compression === 'av1' ? 'avif' : undefined;
    case 'svg':
      // A vector source has no pixels to keep: it is rendered and written as PNG.
      return 'png';
    default:
      return undefined;
  }
}

/**
 * Whether the bytes begin as a raster format we resize does (JPEG, PNG, GIF, WebP, TIFF,
 * HEIF/AVIF): checked before libvips is given them when SVG is not rasterised, since
 * libvips parses a whole SVG document even to read its header (an 11.6 MB SVG: 1.5 s and
 * 500 MB before anything is refused).
 */
export function hasRasterSignature(bytes: Uint8Array): boolean {
  return bytes.byteLength >= 12 && isRasterSignature(mediaSignature(bytes));
}

/**
 * The published filename, with its extension replaced when the bytes are now another
 * format (an SVG rendered as PNG), so a client saving the file names it correctly.
 */
export function filenameFor(filename: string | null, format: OutputFormat): string | null {
  if (filename === null) return null;
  const dot = filename.lastIndexOf('.');
  if (dot <= 0) return filename;
  const { extensions } = FORMATS[format];
  if (extensions.includes(filename.slice(dot).toLowerCase())) return filename;
  return filename.slice(0, dot) + extensions[0];
}
