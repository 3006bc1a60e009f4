/**
 * getBild's resizing as the handler sees it: a stored blob and a request in, a variant
 * out — from the variant cache, or resized once in a queue slot. Cache keys name the
 * blob by its SHA-256, so a changed image can never be answered with an old variant;
 * each request also tells the cache which content its image has now, so the variants of
 * content an image no longer has are deleted (variant-cache.ts `imageContent`).
 */
import type { ResizeMode } from '../contract/types.ts';
import type { StoredBlob } from '../store/content-store.ts';
import { colourHex } from './colour.ts';
import { DEFAULT_IMAGE_SETTINGS, type ImageSettings } from './image-settings.ts';
import { planFor, planName } from './modes.ts';
import { abandoned, ResizeQueue } from './queue.ts';
import { RESIZE_PIPELINE, type Resizer, resizeImage } from './resize.ts';
import { type Variant, VariantCache } from './variant-cache.ts';

export interface ImageRequest {
  readonly width: number;
  readonly height: number;
  readonly modes: readonly ResizeMode[];
  /** Largest output side (SCOOP_MAX_IMAGE_DIMENSION); caps a derived dimension. */
  readonly maxDimension: number;
  /** The image asked for, so the cache can drop the variants of content it no longer has. */
  readonly bildID: number;
}

export interface ImageServiceDeps {
  /** The resize function; tests count or slow down calls through it. */
  readonly resizer?: Resizer;
  /** Told about variant files that could not be written or read. */
  readonly onError?: (error: unknown) => void;
  /** Told whether each variant came from the cache (see VariantCacheOptions.onLookup). */
  readonly onCacheLookup?: (result: 'hit' | 'miss') => void;
}

async function contentOf(blob: StoredBlob): Promise<Buffer> {
  const bytes = blob.bytes; // decoded on each read (content-store.ts): read once
  if (bytes) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: Uint8Array[] = [];
  for await (const chunk of blob.source.chunks()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The requests waiting for one variant (they share its resize, variant-cache.ts): its
 * place in the queue is given up only when every one of them has gone.
 */
class Interest {
  private readonly controller = new AbortController();
  private waiting = 0;
  /** A request without a signal cannot leave, so the resize is always wanted. */
  private pinned = false;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get idle(): boolean {
    return this.waiting === 0 || this.controller.signal.aborted;
  }

  /** Counts a request in; the returned function counts it out when its answer is made. */
  join(signal: AbortSignal | undefined): () => void {
    this.waiting++;
    if (!signal) {
      this.pinned = true;
      return () => this.waiting--;
    }
    let left = false;
    const leave = (gone: boolean) => {
      if (left) return;
      left = true;
      signal.removeEventListener('abort', onAbort);
      this.waiting--;
      if (gone && this.waiting === 0 && !this.pinned) this.controller.abort();
    };
    const onAbort = () => leave(true);
    signal.addEventListener('abort', onAbort, { once: true });
    return () => leave(false);
  }
}

function isAbandoned(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'CLIENT_CLOSED';
}

export class ImageService {
  readonly queue: ResizeQueue;
  private readonly resizer: Resizer;
  private readonly interests = new Map<string, Interest>();

  constructor(
    readonly settings: ImageSettings,
    readonly cache: VariantCache,
    deps: ImageServiceDeps = {},
  ) {
    this.queue = new ResizeQueue({ concurrency: settings.concurrency, maxWaiting: settings.maxWaiting });
    this.resizer = deps.resizer ?? resizeImage;
  }

  /** Opens the variant cache (indexing what a previous run left) and returns the service. */
  static async open(settings: ImageSettings, deps: ImageServiceDeps = {}): Promise<ImageService> {
    const cache = await VariantCache.open({
      dir: settings.cacheDir,
      maxBytes: settings.cacheBytes,
      onError: deps.onError,
      onLookup: deps.onCacheLookup,
    });
    return new ImageService(settings, cache, deps);
  }

  /** A service without a variant cache: every distinct request resizes. */
  static uncached(
    settings: ImageSettings = DEFAULT_IMAGE_SETTINGS,
    deps: ImageServiceDeps = {},
  ): ImageService {
    return new ImageService(settings, VariantCache.none(), deps);
  }

  /** The store has no image `bildID` (any more): its variants go. */
  imageGone(bildID: number): void {
    this.cache.imageContent(String(bildID), undefined);
  }

  close(): void {
    this.cache.close();
  }

  /**
   * The resized image when the variant cache holds it in memory; undefined otherwise (then
   * `variant`). Takes no slot and needs no signal.
   */
  held(blob: StoredBlob, request: ImageRequest): Variant | undefined {
    this.cache.imageContent(String(request.bildID), blob.sha256);
    return this.cache.held(this.keyOf(blob, request));
  }

  /** Only what changes the bytes goes into the key, so equivalent requests share a variant. */
  private keyOf(blob: StoredBlob, request: ImageRequest): string {
    const { width, height, maxDimension } = request;
    const plan = planFor(request.modes);
    return [
      RESIZE_PIPELINE,
      blob.sha256,
      `${width}x${height}`,
      planName(plan),
      plan.pad ? colourHex(this.settings.background) : '-',
      width === 0 || height === 0 ? `max${maxDimension}` : '-',
    ].join(' ');
  }

  /**
   * The resized image; `width` and `height` are not both 0 (that is the stored image).
   * When `signal` fires while the resize waits for a slot (and no other request waits for
   * the same variant), it leaves the queue and never runs (CLIENT_CLOSED).
   */
  async variant(blob: StoredBlob, request: ImageRequest, signal?: AbortSignal): Promise<Variant> {
    const { width, height, maxDimension } = request;
    const plan = planFor(request.modes);
    const key = this.keyOf(blob, request);
    this.cache.imageContent(String(request.bildID), blob.sha256);
    const { background, maxPixels, timeoutSeconds, svg } = this.settings;
    const limits = { maxPixels, maxDimension, background, timeoutSeconds, svg };
    for (;;) {
      if (signal?.aborted) throw abandoned();
      let interest = this.interests.get(key);
      if (!interest || interest.idle) {
        interest = new Interest();
        this.interests.set(key, interest);
      }
      const shared = interest;
      const leave = shared.join(signal);
      try {
        // Queued inside the cache's make step: hits and requests joining a resize under way take no slot.
        return await this.cache.getOrCreate(
          key,
          () =>
            this.queue.run(async () => {
              const resized = await this.resizer(await contentOf(blob), { width, height, plan }, limits);
              return { bytes: resized.bytes, format: resized.format };
            }, shared.signal),
          blob.sha256,
        );
      } catch (error) {
        // Joined a queued resize just as all the others left it: this request still wants it.
        if (isAbandoned(error) && !signal?.aborted) continue;
        throw error;
      } finally {
        leave();
        if (shared.idle && this.interests.get(key) === shared) this.interests.delete(key);
      }
    }
  }
}
