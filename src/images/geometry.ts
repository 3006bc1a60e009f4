/**
 * Sizes for a resize, computed here rather than left to the imaging library so the
 * rules in docs/images.md (rounding, derived dimensions, centring of padding) are ours
 * and unit-tested. Pure.
 */
import type { ResizePlan } from './modes.ts';

export interface Size {
  readonly width: number;
  readonly height: number;
}

export interface Layout {
  /** The size the (EXIF-oriented) source is scaled to. */
  readonly scaled: Size;
  /** `fill`: scale to exactly `scaled`; `cover`: scale to cover `scaled` and cut the overflow centred. */
  readonly fit: 'fill' | 'cover';
  /** The output; larger than `scaled` only when padding. */
  readonly canvas: Size;
  /** Where `scaled` sits on the canvas (the padding is split evenly, the odd pixel right/bottom). */
  readonly left: number;
  readonly top: number;
}

/**
 * The box a request asks for. A 0 dimension is derived from the other keeping the
 * source's aspect ratio; if that derived side would exceed `maxDimension`, it is capped
 * and the given side shrinks in proportion, so no output side exceeds the maximum.
 * Both 0 is not a resize (the caller returns the stored bytes).
 */
export function boxFor(source: Size, width: number, height: number, maxDimension: number): Size {
  if (width > 0 && height > 0) return { width, height };
  const ratio = source.width / source.height;
  if (width === 0) {
    const derived = Math.max(1, Math.round(height * ratio));
    if (derived <= maxDimension) return { width: derived, height };
    return { width: maxDimension, height: Math.max(1, Math.round(maxDimension / ratio)) };
  }
  const derived = Math.max(1, Math.round(width / ratio));
  if (derived <= maxDimension) return { width, height: derived };
  return { width: Math.max(1, Math.round(maxDimension * ratio)), height: maxDimension };
}

function scaleBy(source: Size, factor: number, box: Size): Size {
  return {
    width: Math.min(box.width, Math.max(1, Math.round(source.width * factor))),
    height: Math.min(box.height, Math.max(1, Math.round(source.height * factor))),
  };
}

export function layoutFor(source: Size, box: Size, plan: ResizePlan): Layout {
  if (plan.shape === 'crop' || plan.shape === 'stretch') {
    return { scaled: box, fit: plan.shape === 'crop' ? 'cover' : 'fill', canvas: box, left: 0, top: 0 };
  }
  const inside = Math.min(box.width / source.width, box.height / source.height);
  const factor = plan.shape === 'standard' ? Math.min(inside, 1) : inside;
  const scaled = scaleBy(source, factor, box);
  if (!plan.pad) return { scaled, fit: 'fill', canvas: scaled, left: 0, top: 0 };
  return {
    scaled,
    fit: 'fill',
    canvas: box,
    left: Math.floor((box.width - scaled.width) / 2),
    top: Math.floor((box.height - scaled.height) / 2),
  };
}
