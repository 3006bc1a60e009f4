/** check head: what node's parser leaves to the application (request-headers.ts). */
import type { Stage } from '../pipeline.ts';
import { checkRequestHeaders } from '../request-headers.ts';

export function checkHead(maxHeaders: number): Stage {
  return { name: 'check head', run: (exchange) => checkRequestHeaders(exchange.req, maxHeaders) };
}
