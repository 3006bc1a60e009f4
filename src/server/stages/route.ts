/**
 * route: the path names an endpoint (SOAP) or an endpoint and an operation (HTTP GET/POST);
 * paths are matched exactly, and no path is ever mapped to a file. Then the first
 * registered binding that claims the request takes it. Neither step can fail: what no
 * binding takes is answered by the `unclaimed` stage.
 */
import { findEndpoint } from '../../contract/operations.ts';
import type { Target } from '../../protocol/binding.ts';
import { BINDINGS } from '../../protocol/bindings/registry.ts';
import { type MediaType, parseMediaType } from '../../protocol/content-type.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage } from '../pipeline.ts';

const NONE: Target = { kind: 'none' };

export function target(path: string): Target {
  const endpoint = findEndpoint(path);
  if (endpoint) return { kind: 'endpoint', endpoint };
  const slash = path.lastIndexOf('/');
  const parent = slash > 0 ? findEndpoint(path.slice(0, slash)) : undefined;
  if (parent && slash < path.length - 1)
    return { kind: 'operation', endpoint: parent, operationName: path.slice(slash + 1) };
  return NONE;
}

/** A Content-Type sent twice is ambiguous (request-headers.ts refuses it): no media type to claim by. */
function sentOnce(rawHeaders: readonly string[]): boolean {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 12 && name.toLowerCase() === 'content-type') seen++;
  }
  return seen === 1;
}

function mediaTypeOf(exchange: Exchange): MediaType | undefined {
  const value = exchange.headers['content-type'];
  if (exchange.method !== 'POST' || typeof value !== 'string' || !sentOnce(exchange.req.rawHeaders))
    return undefined;
  return parseMediaType(value);
}

export const route: Stage = {
  name: 'route',
  run(exchange) {
    exchange.target = target(exchange.path);
    exchange.mediaType = mediaTypeOf(exchange);
    for (const binding of BINDINGS) {
      if (binding.claims(exchange)) {
        exchange.binding = binding;
        return;
      }
    }
  },
};
