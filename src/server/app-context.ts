/** What the stages share: settings resolved once, the store, the caches, the writers. */
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator.ts';
import type { Base64Cache } from '../cache/base64-cache.ts';
import type { Operation } from '../contract/operations.ts';
import type { AnswersAtHand } from '../prepare/prepared-answer.ts';
import type { DecodeSettings } from '../protocol/binding.ts';
import type { OperationWriter } from '../protocol/serialize.ts';
import type { ServiceContext } from '../service/handlers.ts';
import type { ContentStore } from '../store/content-store.ts';
import type { BufferPool } from '../support/buffer-pool.ts';
import type { BodyBudget } from './body-budget.ts';
import type { DescribeRoutes } from './describe-routes.ts';
import type { RequestLike } from './exchange.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { ResponseCache } from './response-cache.ts';

export interface AppContext {
  readonly namespace: string;
  readonly decodeSettings: DecodeSettings;
  readonly store: ContentStore;
  readonly logger: Logger;
  readonly now: () => number;
  /** `max-age` of HTTP GET answers of public operations. */
  readonly httpMaxAge: number;
  readonly maxHeaders: number;
  readonly maxBodyBytes: number;
  /** Request bodies held at once, all requests together (SCOOP_MAX_BODY_BYTES_IN_FLIGHT). */
  readonly bodyBudget: BodyBudget;
  readonly maxListItems: number;
  readonly authenticator: Authenticator;
  readonly rateLimiter: RateLimiter | undefined;
  /** Browser origins that may call the JSON API; empty: no CORS at all. */
  readonly corsOrigins: ReadonlySet<string>;
  /** Whole answers; undefined when turned off. */
  readonly responses: ResponseCache | undefined;
  readonly writers: ReadonlyMap<Operation, OperationWriter>;
  /** The handlers' context, but for `expires`, which is per call. */
  readonly service: Omit<ServiceContext, 'expires'>;
  readonly describe: DescribeRoutes;
  readonly base64Cache: Base64Cache | undefined;
  /** Prepared answers kept in a file once read (prepare/answer-pack.ts); undefined when off. */
  readonly answers: AnswersAtHand | undefined;
  /** Buffers lent to the texts an answer sends (support/buffer-pool.ts). */
  readonly textBuffers: BufferPool;
  /** The transport's way of closing a connection whose upload was refused (body.ts). */
  readonly afterRefusedUpload: ((req: RequestLike) => void) | undefined;
  /** Set for graceful shutdown: from then on every answer closes its connection. */
  draining: boolean;
}
