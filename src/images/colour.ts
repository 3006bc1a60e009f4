/** The padding colour of `background` resizes: `SCOOP_IMAGE_BACKGROUND`, as CSS hex notation. */
import { FORMATS, type OutputFormat } from './formats.ts';

export interface Rgba {
  readonly r: number;
  readonly g: number;
  readonly b: number;
  /** Opacity from 0 (transparent) to 1 (opaque). */
  readonly alpha: number;
}

/** White at zero opacity: transparent where the format has alpha, white in JPEG. */
export const DEFAULT_BACKGROUND: Rgba = { r: 255, g: 255, b: 255, alpha: 0 };

/** `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`; undefined for anything else. */
export function parseColour(text: string): Rgba | undefined {
  const m = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(text.trim());
  if (!m) return undefined;
  let hex = m[1]!;
  if (hex.length <= 4) hex = [...hex].map((c) => c + c).join('');
  if (hex.length === 6) hex += 'ff';
  const byte = (i: number) => Number.parseInt(hex.slice(i, i + 2), 16);
  return { r: byte(0), g: byte(2), b: byte(4), alpha: byte(6) / 255 };
}

/** `#rrggbbaa`, lower case: one spelling per colour, for cache keys. */
export function colourHex(colour: Rgba): string {
  const two = (n: number) => Math.round(n).toString(16).padStart(2, '0');
  return `#${two(colour.r)}${two(colour.g)}${two(colour.b)}${two(colour.alpha * 255)}`;
}

/**
 * The colour actually painted: a format without alpha (JPEG) gets the colour opaque,
 * since libvips would otherwise blend a transparent colour towards black.
 */
export function paddingFor(colour: Rgba, format: OutputFormat): Rgba {
  return FORMATS[format].alpha ? colour : { ...colour, alpha: 1 };
}
