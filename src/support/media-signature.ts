/**
 * What a file's first bytes say it is (its "magic number"), for the few formats a
 * publishing service meets: the raster images libvips decodes, SVG (text) and PDF. Pure;
 * knows nothing of scoop.
 */

export type MediaSignature = 'jpeg' | 'png' | 'gif' | 'webp' | 'tiff' | 'heif' | 'svg' | 'pdf';

/** How many leading bytes `mediaSignature` looks at (an SVG may open with a comment or two). */
export const SIGNATURE_BYTES = 1024;

const RASTER: ReadonlySet<MediaSignature> = new Set(['jpeg', 'png', 'gif', 'webp', 'tiff', 'heif']);

/** The media types that name each signature (lower case, without parameters). */
const MEDIA_TYPES: Readonly<Record<MediaSignature, readonly string[]>> = {
  jpeg: ['image/jpeg', 'image/jpg', 'image/pjpeg'],
  png: ['image/png', 'image/x-png', 'image/apng'],
  gif: ['image/gif'],
  webp: ['image/webp'],
  tiff: ['image/tiff'],
  heif: [
    'image/avif',
    'image/heic',
    'image/heif',
    'image/avif-sequence',
    'image/heic-sequence',
    'image/heif-sequence',
  ],
  svg: ['image/svg+xml'],
  pdf: ['application/pdf', 'application/x-pdf'],
};

const latin1 = (bytes: Uint8Array, from: number, to: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', from, to);

/** An XML declaration, comments and a DOCTYPE, in any order, then the `svg` root element. */
const SVG_START = /^(?:\s+|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)*<svg[\s>/]/;

/**
 * The format the bytes begin as, or undefined when they are none of these (or too short
 * to tell). `heif` is any ISO base media file (an `ftyp` box: AVIF, HEIC).
 */
export function mediaSignature(bytes: Uint8Array): MediaSignature | undefined {
  if (bytes.byteLength >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  const head = latin1(bytes, 0, Math.min(bytes.byteLength, SIGNATURE_BYTES));
  if (head.startsWith('\x89PNG\r\n\x1a\n')) return 'png';
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'gif';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'webp';
  if (['II*\0', 'MM\0*', 'II+\0', 'MM\0+'].includes(head.slice(0, 4))) return 'tiff';
  if (head.slice(4, 8) === 'ftyp') return 'heif';
  if (head.startsWith('%PDF-')) return 'pdf';
  if (SVG_START.test(head.startsWith('\xef\xbb\xbf') ? head.slice(3) : head)) return 'svg';
  return undefined;
}

/** Whether the bytes begin as a raster image (JPEG, PNG, GIF, WebP, TIFF, HEIF/AVIF). */
export function isRasterSignature(signature: MediaSignature | undefined): boolean {
  return signature !== undefined && RASTER.has(signature);
}

/** The signature a media type promises (`image/PNG; x=y` as `image/png`), or undefined for one not listed. */
export function signatureOfMediaType(mediaType: string): MediaSignature | undefined {
  const bare = mediaType.split(';')[0]!.trim().toLowerCase();
  for (const [signature, types] of Object.entries(MEDIA_TYPES) as [MediaSignature, readonly string[]][]) {
    if (types.includes(bare)) return signature;
  }
  return undefined;
}

/** The usual media type of a signature, for messages. */
export function mediaTypeOf(signature: MediaSignature): string {
  return MEDIA_TYPES[signature][0]!;
}

/**
 * The signature the bytes have when it contradicts the declared media type; undefined when
 * they agree, or when either is unknown (an unlisted type, bytes of no listed format).
 */
export function contradictedSignature(mediaType: string, bytes: Uint8Array): MediaSignature | undefined {
  const declared = signatureOfMediaType(mediaType);
  if (declared === undefined) return undefined;
  const found = mediaSignature(bytes);
  return found !== undefined && found !== declared ? found : undefined;
}
