/**
 * The kernel: a request-like value in, an answer written to a response-like value. It runs
 * the request through the named stages below (pipeline.ts); it never sees a socket, so
 * tests drive it with fakes (app.test.ts), and http-server.ts is its node:http adapter.
 */
import type { Logger } from 'pino';
import { Authenticator } from '../auth/authenticator.ts';
import { type Base64Cache, TEXT_NOW_BYTES } from '../cache/base64-cache.ts';
import { OPERATIONS, type Operation } from '../contract/operations.ts';
import { ImageService } from '../images/image-service.ts';
import { cacheLookupCounter, type Metrics } from '../observe/metrics.ts';
import type { RequestLine } from '../observe/request-line.ts';
import { createObserver } from '../observe/request-log.ts';
import type { AnswerPack } from '../prepare/answer-pack.ts';
import { compileOperationWriter, type OperationWriter } from '../protocol/serialize.ts';
import type { ServiceOptions } from '../service/handlers.ts';
import type { ContentStore } from '../store/content-store.ts';
import { BufferPool } from '../support/buffer-pool.ts';
import type { XmlLimits } from '../xml/reader.ts';
import type { AnswerFile } from './answer-file.ts';
import type { AppContext } from './app-context.ts';
import { BodyBudget } from './body-budget.ts';
import { createDescribeRoutes } from './describe-routes.ts';
import { Exchange, type RequestLike, type ResponseLike } from './exchange.ts';
import { runStages, type Stage } from './pipeline.ts';
import { type RateLimit, RateLimiter } from './rate-limit.ts';
import { refuser } from './refuse.ts';
import { ResponseCache } from './response-cache.ts';
import { DEFAULT_MAX_BODY_BYTES_IN_FLIGHT, DEFAULT_SERVER_LIMITS } from './settings.ts';
import type { Shadow } from './shadow.ts';
import { admit } from './stages/admit.ts';
import { authenticate } from './stages/authenticate.ts';
import { cachedAnswer } from './stages/cached-answer.ts';
import { checkHead } from './stages/check-head.ts';
import { cors } from './stages/cors.ts';
import { decode } from './stages/decode.ts';
import { invoke } from './stages/invoke.ts';
import { readBody } from './stages/read-body.ts';
import { route } from './stages/route.ts';
import { sendAnswer } from './stages/send-answer.ts';
import { unclaimed } from './stages/unclaimed.ts';

export interface AppOptions {
  readonly store: ContentStore;
  readonly namespace: string;
  /** Public base URL for WSDL addresses; else the request's own scheme and host. */
  readonly publicUrl?: string | undefined;
  /** Honour X-Forwarded-Proto/-Host when building URLs (behind a trusted proxy only). */
  readonly trustProxy?: boolean;
  /** `max-age` of HTTP GET answers of public operations. */
  readonly httpMaxAge?: number;
  /** Most header fields a request may have. */
  readonly maxHeaders?: number;
  readonly metrics?: Metrics;
  /** Per-client rate limit; off when absent. */
  readonly rateLimit?: RateLimit;
  /** Browser origins that may call the JSON API (SCOOP_CORS_ORIGINS); none when absent. */
  readonly corsOrigins?: readonly string[];
  /** Memory for whole answers (0 turns the response cache off). */
  readonly responseCacheBytes?: number;
  /** The answer cache's file tier (answer-file.ts); none when absent or when the cache is off. */
  readonly answerFile?: AnswerFile | undefined;
  /** Whether HTTP GET/POST calls of `scoop.asmx` operations need a token. */
  readonly httpAuth: boolean;
  readonly maxBodyBytes: number;
  /** Request bodies held at once, all requests together; the default when absent. */
  readonly maxBodyBytesInFlight?: number;
  readonly maxListItems: number;
  readonly xmlLimits: XmlLimits;
  readonly service: ServiceOptions;
  /** getBild's resizing; without it every resize is made anew (no variant cache). */
  readonly images?: ImageService;
  /** Files of large binaries' base64 text; without it they are always read from the store. */
  readonly base64Cache?: Base64Cache;
  /** Prepared answers kept once read from the store; without it every one is read from there. */
  readonly answerPack?: AnswerPack | undefined;
  /** `serve --shadow`: replays a sample of the answered requests to the original (shadow.ts). */
  readonly shadow?: Shadow | undefined;
  /** How the transport closes a connection whose upload was refused (http-server.ts). */
  readonly afterRefusedUpload?: (req: RequestLike) => void;
  readonly logger: Logger;
  /** Writes the request log's lines (observe/request-line.ts); by default `logger.info`. */
  readonly requestLine?: RequestLine | undefined;
  readonly now?: () => number;
}

const DEFAULT_RESPONSE_CACHE_BYTES = 16 * 1024 * 1024;
/**
 * Unused text buffers kept for the next answers: about what 32 answers in flight lend of
 * texts of one chunk; the few of up to TEXT_NOW_BYTES (an image of 0.2–1.5 MB) are two kept.
 */
const TEXT_BUFFERS_KEPT = 8 * 1024 * 1024;

function context(options: AppOptions): AppContext {
  const metrics = options.metrics;
  const cacheBytes = options.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES;
  const lookups = metrics && { lookup: cacheLookupCounter(metrics, 'answers') };
  const now = options.now ?? Date.now;
  return {
    namespace: options.namespace,
    decodeSettings: {
      namespace: options.namespace,
      xmlLimits: options.xmlLimits,
      httpAuth: options.httpAuth,
    },
    store: options.store,
    logger: options.logger,
    now,
    httpMaxAge: options.httpMaxAge ?? 60,
    maxHeaders: options.maxHeaders ?? DEFAULT_SERVER_LIMITS.maxHeaders,
    maxBodyBytes: options.maxBodyBytes,
    bodyBudget: new BodyBudget(
      options.maxBodyBytesInFlight ?? Math.max(DEFAULT_MAX_BODY_BYTES_IN_FLIGHT, options.maxBodyBytes),
    ),
    maxListItems: options.maxListItems,
    authenticator: new Authenticator(options.store),
    rateLimiter: options.rateLimit ? new RateLimiter(options.rateLimit, metrics) : undefined,
    corsOrigins: new Set(options.corsOrigins ?? []),
    responses:
      cacheBytes > 0
        ? new ResponseCache(
            cacheBytes,
            lookups,
            options.answerFile,
            metrics && { lookup: cacheLookupCounter(metrics, 'answer_file') },
          )
        : undefined,
    writers: new Map<Operation, OperationWriter>(
      OPERATIONS.map((op) => [op, compileOperationWriter(op, options.namespace, options.publicUrl ?? '')]),
    ),
    service: {
      store: options.store,
      now,
      options: options.service,
      images: options.images ?? ImageService.uncached(),
    },
    describe: createDescribeRoutes({
      namespace: options.namespace,
      publicUrl: options.publicUrl,
      trustProxy: options.trustProxy ?? false,
      httpAuth: options.httpAuth,
      maxImageDimension: options.service.maxImageDimension,
      maxListItems: options.maxListItems,
      httpMaxAge: options.httpMaxAge ?? 60,
    }),
    base64Cache: options.base64Cache,
    answers: options.answerPack && {
      pack: options.answerPack,
      version: () => options.store.peekVersion(),
    },
    textBuffers: new BufferPool(TEXT_BUFFERS_KEPT, TEXT_NOW_BYTES),
    afterRefusedUpload: options.afterRefusedUpload,
    draining: false,
  };
}

/** The lifecycle, in order; stages a setting turns off are left out rather than skipped per request. */
export function lifecycle(app: AppContext): Stage[] {
  return [
    route,
    ...(app.rateLimiter ? [admit(app.rateLimiter)] : []),
    checkHead(app.maxHeaders),
    ...(app.corsOrigins.size > 0 ? [cors(app, app.corsOrigins)] : []),
    unclaimed(app),
    readBody(app),
    ...(app.responses ? [cachedAnswer(app, app.responses)] : []),
    decode(app),
    authenticate(app),
    invoke(app),
    sendAnswer(app),
  ];
}

export function createApp(options: AppOptions) {
  const app = context(options);
  const stages = lifecycle(app);
  const refuse = refuser(app);
  const observer = createObserver(options.logger, options.metrics, {
    trustProxy: options.trustProxy ?? false,
    requestLine: options.requestLine,
  });
  const shadow = options.shadow;

  /**
   * Answers one request; returns at once, or when the answer is written if nothing had to wait.
   * `arrivedAt` (performance.now()) when the request waited before it got here (turns.ts).
   */
  function handle(req: RequestLike, res: ResponseLike, arrivedAt?: number): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    // A sampled request's answer is written through a recording response (shadow.ts).
    const watched = shadow?.watch(res);
    const exchange = new Exchange(
      req,
      watched?.response ?? res,
      observer.start(req, res, path, arrivedAt),
      path,
      q < 0 ? '' : url.slice(q + 1),
    );
    watched?.attach(exchange);
    runStages(stages, exchange, refuse);
  }

  return Object.assign(handle, {
    /** The stages' names, in order (for tests and docs). */
    stages: stages.map((stage) => stage.name),
    /** From now on every answer closes its connection (graceful shutdown; answer-headers.ts). */
    drain() {
      app.draining = true;
    },
  });
}
