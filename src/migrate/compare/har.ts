/**
 * `compare --har FILE`: the service calls of a HAR file (HTTP Archive 1.2, what browser
 * devtools, Fiddler and mitmproxy export), replayed with their bodies. An entry is a call
 * when its URL's path holds an endpoint's path (`…/scoop/api/v6/public.asmx`, perhaps
 * after a prefix of the installation's own, which is dropped: each side's base URL
 * supplies its own) and it is a SOAP POST or an HTTP GET/POST of an operation; every
 * other entry (pages, scripts, images) is skipped and counted.
 */
import { ENDPOINTS } from '../../contract/operations.ts';
import type { BindingName } from '../../protocol/binding.ts';
import { capturedRequest, type ReplayRequest } from './replay-request.ts';

export class HarError extends Error {}

export interface HarRequests {
  readonly requests: ReplayRequest[];
  /** Entries that are not calls of the service, or not over a chosen binding. */
  readonly skipped: number;
}

type Json = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The part of a URL path from the endpoint's path on, or undefined when it names no endpoint. */
function servicePath(pathname: string): string | undefined {
  for (const endpoint of ENDPOINTS) {
    const at = pathname.indexOf(endpoint.path);
    if (at < 0) continue;
    const rest = pathname.slice(at + endpoint.path.length);
    if (rest === '' || rest.startsWith('/')) return pathname.slice(at);
  }
  return undefined;
}

function bodyOf(postData: unknown, where: string): Buffer {
  if (postData === undefined || postData === null) return Buffer.alloc(0);
  if (!isObject(postData)) throw new HarError(`${where}.postData is not an object`);
  if (typeof postData.text === 'string')
    return Buffer.from(postData.text, postData.encoding === 'base64' ? 'base64' : 'utf8');
  // A form some tools record only as its parameters.
  if (Array.isArray(postData.params)) {
    const form = new URLSearchParams();
    for (const p of postData.params)
      if (isObject(p) && typeof p.name === 'string')
        form.append(p.name, typeof p.value === 'string' ? p.value : '');
    return Buffer.from(form.toString(), 'utf8');
  }
  return Buffer.alloc(0);
}

export function parseHar(text: string, bindings: readonly BindingName[]): HarRequests {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new HarError(`is not JSON (${(error as Error).message.split('\n')[0]})`);
  }
  const entries = isObject(json) && isObject(json.log) ? json.log.entries : undefined;
  if (!Array.isArray(entries)) throw new HarError('is not a HAR file: it has no log.entries list');
  const requests: ReplayRequest[] = [];
  let skipped = 0;
  entries.forEach((entry: unknown, i) => {
    const where = `log.entries[${i}].request`;
    const request = isObject(entry) ? entry.request : undefined;
    if (!isObject(request)) throw new HarError(`${where} is missing`);
    if (typeof request.method !== 'string') throw new HarError(`${where}.method is missing`);
    let url: URL;
    try {
      url = new URL(String(request.url));
    } catch {
      throw new HarError(`${where}.url is not a URL`);
    }
    const headers: Record<string, string> = {};
    if (!Array.isArray(request.headers)) throw new HarError(`${where}.headers is not a list`);
    for (const h of request.headers)
      if (isObject(h) && typeof h.name === 'string' && typeof h.value === 'string')
        headers[h.name.toLowerCase()] = h.value;
    const body = bodyOf(request.postData, where);
    if (headers['content-type'] === undefined && isObject(request.postData)) {
      const type = request.postData.mimeType;
      if (typeof type === 'string' && type !== '') headers['content-type'] = type;
    }
    const path = servicePath(url.pathname);
    const replay =
      path === undefined
        ? undefined
        : capturedRequest(request.method.toUpperCase(), `${path}${url.search}`, headers, body);
    if (replay && bindings.includes(replay.binding)) requests.push(replay);
    else skipped++;
  });
  return { requests, skipped };
}
