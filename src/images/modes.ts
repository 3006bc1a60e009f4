/**
 * The precedence rule: a `resizeModes` list, in any combination the original accepted,
 * becomes one resize plan (docs/images.md). Pure, so the rule is tested on its own.
 */
import type { ResizeMode } from '../contract/types.ts';

/** How the image is brought to the box; `background` is not a shape but a padding flag. */
export type Shape = 'standard' | 'fit' | 'crop' | 'stretch';

export interface ResizePlan {
  readonly shape: Shape;
  /** Pad to exactly the box with the background colour (only for shapes that can leave a margin). */
  readonly pad: boolean;
}

const SHAPES: ReadonlySet<ResizeMode> = new Set<ResizeMode>(['standard', 'fit', 'crop', 'stretch']);

/**
 * The first listed of `crop`, `stretch`, `fit`, `standard` decides the shape (`standard`
 * when none is listed); `background` pads `standard` and `fit` results to the box. `crop`
 * and `stretch` fill the box already, so `background` changes nothing for them and is
 * dropped, which also makes equivalent lists share one cached variant.
 */
export function planFor(modes: readonly ResizeMode[]): ResizePlan {
  const shape = (modes.find((mode) => SHAPES.has(mode)) ?? 'standard') as Shape;
  const pad = (shape === 'standard' || shape === 'fit') && modes.includes('background');
  return { shape, pad };
}

/** A stable name of the plan, for cache keys and logs: `standard`, `fit+background`, … */
export function planName(plan: ResizePlan): string {
  return plan.pad ? `${plan.shape}+background` : plan.shape;
}
