/**
 * getBild's settings and their defaults, apart from the resizing itself (image-service.ts),
 * so that reading the settings (server/settings.ts, which every command does) does not load
 * sharp: `scoop import` and `scoop token` start without it.
 */
import { availableParallelism } from 'node:os';
import { DEFAULT_BACKGROUND, type Rgba } from './colour.ts';

export interface ImageSettings {
  /** Resizes running at once in this process. */
  readonly concurrency: number;
  /** Resizes waiting for a slot in this process; one more is refused as BUSY. */
  readonly maxWaiting: number;
  /** Sources with more pixels are refused (IMAGE_TOO_LARGE). */
  readonly maxPixels: number;
  /** Folder of the variant cache; undefined: no cache. */
  readonly cacheDir: string | undefined;
  /** Bound of the variant files' total size; 0: no cache. */
  readonly cacheBytes: number;
  readonly background: Rgba;
  /** A resize is given up after this many seconds (IMAGE_TOO_COMPLEX); 0: never. */
  readonly timeoutSeconds: number;
  /** Whether SVG sources are rasterised (off: IMAGE_NOT_RESIZABLE). */
  readonly svg: boolean;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * One slot per CPU, shared by the `workers` processes of an instance, but in each at most
 * one less than libuv's thread pool (4 unless UV_THREADPOOL_SIZE says otherwise): sharp
 * runs each resize on a pool thread, and the file reads of cache hits need a free one, or
 * they would queue behind resizes.
 */
export function defaultConcurrency(env: Env = process.env, workers = 1): number {
  const pool = Number(env.UV_THREADPOOL_SIZE) || 4;
  return Math.max(1, Math.min(Math.floor(availableParallelism() / workers), pool - 1));
}

/**
 * One process's share when `workers` processes serve an instance: SCOOP_RESIZE_CONCURRENCY
 * and SCOOP_RESIZE_QUEUE are the instance's, so that adding workers does not multiply the
 * resizes a machine runs. Slots round down (at least one), queue places up.
 */
export function workerShare(
  instance: { readonly concurrency: number | undefined; readonly maxWaiting: number },
  workers: number,
  env: Env = process.env,
): { concurrency: number; maxWaiting: number } {
  return {
    concurrency:
      instance.concurrency === undefined
        ? defaultConcurrency(env, workers)
        : Math.max(1, Math.floor(instance.concurrency / workers)),
    maxWaiting: Math.ceil(instance.maxWaiting / workers),
  };
}

export const DEFAULT_IMAGE_SETTINGS: ImageSettings = {
  concurrency: defaultConcurrency(),
  maxWaiting: 64,
  maxPixels: 40_000_000,
  cacheDir: undefined,
  cacheBytes: 256 * 1024 * 1024,
  background: DEFAULT_BACKGROUND,
  timeoutSeconds: 10,
  svg: false,
};
