/**
 * admit: every request is charged to its address (or to a token it verified with before)
 * before anything is read or decoded (rate-limit.ts). Only in the pipeline when a rate
 * limit is set.
 */
import { single } from '../../protocol/binding.ts';
import { bearerToken } from '../../protocol/http-request.ts';
import type { Stage } from '../pipeline.ts';
import type { RateLimiter } from '../rate-limit.ts';

export function admit(limiter: RateLimiter): Stage {
  return {
    name: 'admit',
    run(exchange) {
      exchange.admission = limiter.admitAddress(
        exchange.req.socket.remoteAddress,
        bearerToken(single(exchange.headers.authorization)),
      );
    },
  };
}
