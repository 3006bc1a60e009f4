/**
 * send: the answer's head, an ETag for GET (etag.ts), and its body parts: buffers for
 * markup, deferred parts for large binaries whose base64 streams from the store or the
 * base64 cache (send.ts). `Content-Length` is exact up front. A successful answer small
 * enough for the answer cache is assembled into one buffer first and kept.
 */
import { ScoopError } from '../../contract/errors.ts';
import { single } from '../../protocol/binding.ts';
import { bindingNamed } from '../../protocol/bindings/registry.ts';
import { type BodyPart, bodyLength } from '../../xml/writer.ts';
import { answeredNotModified, closeIfDraining, successHeaders } from '../answer-headers.ts';
import type { AppContext } from '../app-context.ts';
import { chooseRange, partOf } from '../byte-range.ts';
import { entityTag } from '../etag.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage } from '../pipeline.ts';
import { cachedHead, MAX_CACHED_ANSWER } from '../response-cache.ts';
import { allBuffers, materialize, sendParts } from '../send.ts';

async function send(app: AppContext, exchange: Exchange): Promise<void> {
  const call = exchange.call!;
  let { parts } = exchange.answer!;
  const binding = bindingNamed(call.binding);
  const headers = { ...successHeaders(binding, call, app.httpMaxAge), ...exchange.answer!.headers };
  // RFC 9110 §13.1.2: a tag and 304 for GET and HEAD only (the JSON API's search is a POST).
  const conditional = binding.conditional && (exchange.method === 'GET' || exchange.method === 'HEAD');
  if (conditional) {
    const tag = exchange.answer!.tag ?? entityTag(parts);
    if (tag) headers.etag = tag;
  }
  const { key, res, observation } = exchange;
  const responses = key !== undefined ? app.responses : undefined;
  const length = responses ? bodyLength(parts) : 0;
  const keep = responses !== undefined && length <= MAX_CACHED_ANSWER && responses.admits(key!, length);
  if (keep) {
    const body = await materialize(parts);
    responses!.set(key!, {
      version: exchange.version,
      expiresAt: exchange.answer!.expiresAt,
      headers,
      body,
      head: cachedHead(headers, body.length),
      call,
      conditional,
    });
    parts = [body];
  }
  if (responses !== undefined && length <= MAX_CACHED_ANSWER && allBuffers(parts))
    responses.keepInFile(
      key!,
      {
        version: exchange.version,
        expiresAt: exchange.answer!.expiresAt,
        headers,
        body: parts,
        call,
        conditional,
      },
      app.now(),
    );
  closeIfDraining(app, exchange);
  if (conditional && answeredNotModified(exchange, headers)) return;
  let status = 200;
  if (headers['accept-ranges'] === 'bytes' && exchange.method === 'GET') {
    const ranged = byteRange(exchange, headers, parts);
    if (ranged) {
      status = 206;
      parts = ranged.parts;
      headers['content-range'] = ranged.contentRange;
    }
  }
  exchange.answered = true;
  await sendParts(
    res,
    status,
    { ...headers, 'x-request-id': observation.id },
    parts,
    exchange.method !== 'HEAD',
    observation,
    keep ? undefined : app.base64Cache,
  );
}

/**
 * The part a Range asks for of an answer that offers byte ranges (one binary; byte-range.ts),
 * undefined for the whole; RANGE_NOT_SATISFIABLE when it lies outside the content.
 */
function byteRange(
  exchange: Exchange,
  headers: Readonly<Record<string, string>>,
  parts: readonly BodyPart[],
): { parts: BodyPart[]; contentRange: string } | undefined {
  const size = bodyLength(parts);
  const choice = chooseRange(
    single(exchange.headers.range),
    single(exchange.headers['if-range']),
    headers.etag,
    size,
  );
  if (choice.kind === 'whole' || parts.length !== 1) return undefined;
  if (choice.kind === 'unsatisfiable') {
    throw new ScoopError('RANGE_NOT_SATISFIABLE', `The range asks for none of the content's ${size} bytes.`, {
      headers: { 'content-range': `bytes */${size}` },
    });
  }
  return {
    parts: [partOf(parts[0]!, choice.start, choice.end)],
    contentRange: `bytes ${choice.start}-${choice.end}/${size}`,
  };
}

export function sendAnswer(app: AppContext): Stage {
  return { name: 'send', run: (exchange) => send(app, exchange) };
}
