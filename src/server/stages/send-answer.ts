/**
 * send: the answer's head, an ETag for GET (etag.ts), and its body parts: buffers for
 * markup, deferred parts for large binaries whose base64 streams from the store or the
 * base64 cache (send.ts). `Content-Length` is exact up front. A successful answer small
 * enough for the answer cache is assembled into one buffer first and kept.
 */
import { bindingNamed } from '../../protocol/bindings/registry.ts';
import { bodyLength } from '../../xml/writer.ts';
import { answeredNotModified, closeIfDraining, successHeaders } from '../answer-headers.ts';
import type { AppContext } from '../app-context.ts';
import { entityTag } from '../etag.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage } from '../pipeline.ts';
import { cachedHead, MAX_CACHED_ANSWER } from '../response-cache.ts';
import { materialize, sendParts } from '../send.ts';

async function send(app: AppContext, exchange: Exchange): Promise<void> {
  const call = exchange.call!;
  let { parts } = exchange.answer!;
  const binding = bindingNamed(call.binding);
  const headers = successHeaders(binding, call.operation, app.httpMaxAge);
  if (binding.conditional) {
    const tag = entityTag(parts);
    if (tag) headers.etag = tag;
  }
  const { key, res, observation } = exchange;
  const keep = key !== undefined && app.responses !== undefined && bodyLength(parts) <= MAX_CACHED_ANSWER;
  if (keep) {
    const body = await materialize(parts);
    app.responses!.set(key, {
      version: exchange.version,
      expiresAt: exchange.answer!.expiresAt,
      headers,
      body,
      head: cachedHead(headers, body.length),
      call,
      conditional: binding.conditional,
    });
    parts = [body];
  }
  closeIfDraining(app, exchange);
  if (binding.conditional && answeredNotModified(exchange, headers)) return;
  exchange.answered = true;
  await sendParts(
    res,
    200,
    { ...headers, 'x-request-id': observation.id },
    parts,
    exchange.method !== 'HEAD',
    observation,
    keep ? undefined : app.base64Cache,
  );
}

export function sendAnswer(app: AppContext): Stage {
  return { name: 'send', run: (exchange) => send(app, exchange) };
}
