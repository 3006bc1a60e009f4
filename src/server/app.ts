/**
 * The request lifecycle, as named stages:
 *   route → read body → decode (per binding) → authenticate → coerce → handle →
 *   serialize (writer compiled at start-up) → send.
 * Any failure is a catalogue error rendered by the binding that received the request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Authenticator } from '../auth/authenticator.ts';
import type { Base64Cache } from '../cache/base64-cache.ts';
import { type ErrorCode, isScoopError, ScoopError } from '../contract/errors.ts';
import {
  type Endpoint,
  findEndpoint,
  findOperation,
  OPERATIONS,
  type Operation,
} from '../contract/operations.ts';
import { ImageService } from '../images/image-service.ts';
import type { Metrics } from '../observe/metrics.ts';
import { createObserver, type Observation } from '../observe/request-log.ts';
import type { BindingName } from '../protocol/binding.ts';
import { soapBinding } from '../protocol/binding.ts';
import { coerceArguments, type RawParameters } from '../protocol/coerce.ts';
import { parseMediaType } from '../protocol/content-type.ts';
import { renderHttpError, renderSoapFault } from '../protocol/faults.ts';
import {
  bearerToken,
  FORM_MEDIA_TYPE,
  formParameters,
  formToken,
  hasTokenField,
  parseForm,
  readFormBody,
  refuseQueryParameters,
} from '../protocol/http-request.ts';
import { SOAP_CONTENT_TYPE, type SoapVersion } from '../protocol/namespaces.ts';
import { compileOperationWriter, type OperationWriter } from '../protocol/serialize.ts';
import { decodeSoapRequest, isSoapMediaType, versionByMediaType } from '../protocol/soap-request.ts';
import { checkHandlers, HANDLERS, type ServiceOptions } from '../service/handlers.ts';
import type { ContentStore } from '../store/content-store.ts';
import { StoreUnavailableError } from '../store/content-store.ts';
import type { XmlLimits } from '../xml/reader.ts';
import { type BodyPart, bodyLength } from '../xml/writer.ts';
import { collectBody, readBody } from './body.ts';
import { createDescribeRoutes, type Document } from './describe-routes.ts';
import { entityTag, noneMatch } from './etag.ts';
import { type Admission, type RateLimit, RateLimiter } from './rate-limit.ts';
import { checkRequestHeaders } from './request-headers.ts';
import {
  answerHead,
  type CachedAnswer,
  cachedHead,
  MAX_CACHED_ANSWER,
  type RequestKey,
  ResponseCache,
  requestKey,
} from './response-cache.ts';
import { materialize, sendParts } from './send.ts';
import { DEFAULT_SERVER_LIMITS } from './settings.ts';

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
  /** Memory for whole answers (0 turns the response cache off). */
  readonly responseCacheBytes?: number;
  /** Whether HTTP GET/POST calls of `scoop.asmx` operations need a token. */
  readonly httpAuth: boolean;
  readonly maxBodyBytes: number;
  readonly maxListItems: number;
  readonly xmlLimits: XmlLimits;
  readonly service: ServiceOptions;
  /** getBild's resizing; without it every resize is made anew (no variant cache). */
  readonly images?: ImageService;
  /** Files of large binaries' base64 text; without it they are always read from the store. */
  readonly base64Cache?: Base64Cache;
  readonly logger: Logger;
  readonly now?: () => number;
}

/** The original's header for answers of an invoked web method (reference/README.md §1). */
const CACHE_CONTROL = 'private, max-age=0';
const XML_CONTENT_TYPE = 'text/xml; charset=utf-8';
const DEFAULT_RESPONSE_CACHE_BYTES = 128 * 1024 * 1024;
/** Refusals made before a SOAP request exists, answered as HTTP even on a SOAP endpoint. */
const HTTP_LEVEL: ReadonlySet<ErrorCode> = new Set([
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
  'BAD_REQUEST',
]);

interface Call {
  readonly binding: BindingName;
  readonly operation: Operation;
  readonly parameters: RawParameters;
  readonly token: string | undefined;
  /** Whether a token is demanded on this binding. */
  readonly authenticate: boolean;
  readonly soapVersion?: SoapVersion;
}

type Route =
  | { kind: 'soap'; endpoint: Endpoint }
  | { kind: 'http'; endpoint: Endpoint; operationName: string }
  | { kind: 'none' };

function route(path: string): Route {
  const direct = findEndpoint(path);
  if (direct) return { kind: 'soap', endpoint: direct };
  const slash = path.lastIndexOf('/');
  const endpoint = slash > 0 ? findEndpoint(path.slice(0, slash)) : undefined;
  if (endpoint && slash < path.length - 1)
    return { kind: 'http', endpoint, operationName: path.slice(slash + 1) };
  return { kind: 'none' };
}

function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

export function createApp(options: AppOptions) {
  checkHandlers();
  const writers = new Map<Operation, OperationWriter>(
    OPERATIONS.map((op) => [op, compileOperationWriter(op, options.namespace)]),
  );
  const authenticator = new Authenticator(options.store);
  const context = {
    store: options.store,
    now: options.now ?? Date.now,
    options: options.service,
    images: options.images ?? ImageService.uncached(),
  };
  const { logger, namespace } = options;
  const httpMaxAge = options.httpMaxAge ?? 60;
  const describe = createDescribeRoutes({
    namespace,
    publicUrl: options.publicUrl,
    trustProxy: options.trustProxy ?? false,
  });

  const observer = createObserver(logger, options.metrics);
  const rateLimiter = options.rateLimit ? new RateLimiter(options.rateLimit, options.metrics) : undefined;
  let draining = false;
  const answerHits = options.metrics?.cacheLookups.series('answers', 'hit');
  const answerMisses = options.metrics?.cacheLookups.series('answers', 'miss');
  const answerLookups = options.metrics && {
    lookup: (result: 'hit' | 'miss') => (result === 'hit' ? answerHits : answerMisses)!.inc(),
  };
  const responses =
    (options.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES) > 0
      ? new ResponseCache(options.responseCacheBytes ?? DEFAULT_RESPONSE_CACHE_BYTES, answerLookups)
      : undefined;

  async function readCountedBody(req: IncomingMessage, observation: Observation): Promise<Buffer> {
    const body = await readBody(req, options.maxBodyBytes);
    observation.bytesIn = body.length;
    return body;
  }

  /**
   * Whether a POST's body is read before decoding, so the answer cache can key on it: only
   * a body of the media type the binding accepts (any other is refused, 415, unread). For
   * SOAP it also makes the first guess of the version a fault would be written in.
   */
  function keyedOnBody(req: IncomingMessage, kind: 'soap' | 'http', soap: { guess: SoapVersion }): boolean {
    if (!responses || req.method !== 'POST') return false;
    const mediaType = parseMediaType(req.headers['content-type']);
    if (kind === 'http') return mediaType?.essence === FORM_MEDIA_TYPE;
    if (!isSoapMediaType(mediaType)) return false;
    soap.guess = versionByMediaType(mediaType);
    return true;
  }

  function cacheKey(req: IncomingMessage, body: Buffer | undefined): RequestKey | undefined {
    return requestKey(
      req.method ?? '',
      req.url ?? '/',
      {
        authorization: single(req.headers.authorization),
        contentType: req.headers['content-type'],
        soapAction: single(req.headers.soapaction),
      },
      body,
    );
  }

  /** GET/HEAD outside the operation paths: help pages, WSDL, DISCO, the index. */
  async function sendDocument(
    req: IncomingMessage,
    res: ServerResponse,
    doc: Document,
    observation: Observation,
  ): Promise<void> {
    await sendParts(
      res,
      200,
      {
        'content-type': doc.contentType,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        'x-request-id': observation.id,
        ...doc.headers,
      },
      [Buffer.from(doc.body, 'utf8')],
      req.method !== 'HEAD',
      observation,
    );
  }

  async function decodeSoap(
    req: IncomingMessage,
    endpoint: Endpoint,
    version: { guess: SoapVersion },
    observation: Observation,
    preread: Buffer | undefined,
  ): Promise<Call> {
    const mediaType = parseMediaType(req.headers['content-type']);
    if (!isSoapMediaType(mediaType)) {
      throw new ScoopError(
        'UNSUPPORTED_MEDIA_TYPE',
        `SOAP requests are sent as text/xml (SOAP 1.1) or application/soap+xml (SOAP 1.2), not ${mediaType?.essence ?? 'without a content type'}.`,
      );
    }
    version.guess = versionByMediaType(mediaType);
    const body = preread ?? (await readCountedBody(req, observation));
    const decoded = decodeSoapRequest({
      endpoint,
      namespace,
      mediaType: mediaType!,
      soapAction: single(req.headers.soapaction),
      body,
      limits: options.xmlLimits,
    });
    version.guess = decoded.version;
    return {
      binding: soapBinding(decoded.version),
      operation: decoded.operation,
      parameters: decoded.parameters,
      token: decoded.token,
      authenticate: endpoint.requiresToken,
      soapVersion: decoded.version,
    };
  }

  async function decodeHttp(
    req: IncomingMessage,
    endpoint: Endpoint,
    operationName: string,
    query: string,
    observation: Observation,
    preread: Buffer | undefined,
  ): Promise<Call> {
    const method = req.method ?? 'GET';
    const isGet = method === 'GET' || method === 'HEAD';
    if (!isGet && method !== 'POST') {
      throw new ScoopError(
        'METHOD_NOT_ALLOWED',
        `The method ${method} is not allowed here; use GET or POST.`,
      );
    }
    const operation = findOperation(endpoint, operationName);
    if (!operation) {
      throw new ScoopError(
        'UNKNOWN_OPERATION',
        `The operation ${operationName.slice(0, 100)} is not offered at ${endpoint.path}.`,
      );
    }
    const queryPairs = parseForm(query);
    // Tokens in URLs end up in access logs and proxies; only headers and form bodies may carry them.
    if (hasTokenField(queryPairs)) {
      throw new ScoopError(
        'TOKEN_IN_URL',
        'A token must not be sent in the URL; use the Authorization header.',
      );
    }
    if (!isGet) refuseQueryParameters(operation, queryPairs);
    const pairs = isGet
      ? queryPairs
      : readFormBody(
          preread ?? (await readCountedBody(req, observation)),
          parseMediaType(req.headers['content-type']),
        );
    const fromHeader = bearerToken(single(req.headers.authorization));
    const fromForm = isGet ? undefined : formToken(pairs);
    if (fromHeader !== undefined && fromForm !== undefined) {
      throw new ScoopError(
        'DUPLICATE_PARAMETER',
        'The token was sent both in the Authorization header and in the form.',
      );
    }
    return {
      binding: isGet ? 'httpget' : 'httppost',
      operation,
      parameters: formParameters(operation, pairs),
      token: fromHeader ?? fromForm,
      authenticate: endpoint.requiresToken && options.httpAuth,
    };
  }

  /** Verifies a token, telling the rate limit's admission how it went. */
  async function authenticate(token: string | undefined, admission: Admission | undefined): Promise<void> {
    try {
      await authenticator.verify(token);
    } catch (error) {
      if (isScoopError(error) && error.code === 'AUTH_FAILED') admission?.authFailed();
      throw error;
    }
    if (token !== undefined) admission?.admitToken(token);
  }

  async function invoke(
    call: Call,
    admission: Admission | undefined,
  ): Promise<{ parts: BodyPart[]; expiresAt: number }> {
    if (call.authenticate) await authenticate(call.token, admission);
    const args = coerceArguments(call.operation, call.parameters, { maxListItems: options.maxListItems });
    let expiresAt = Number.POSITIVE_INFINITY;
    const result = await HANDLERS[call.operation.name]!(args, {
      ...context,
      expires: (at) => {
        expiresAt = Math.min(expiresAt, at);
      },
    });
    const writer = writers.get(call.operation)!;
    return {
      parts: call.soapVersion ? writer.soap(call.soapVersion, result) : writer.http(result),
      expiresAt,
    };
  }

  /** The head of a successful answer, without the request id (answers are cached without it). */
  function successHeaders(binding: BindingName, operation: Operation, soapVersion: SoapVersion | undefined) {
    const headers: Record<string, string> = {
      'content-type': soapVersion ? SOAP_CONTENT_TYPE[soapVersion] : XML_CONTENT_TYPE,
      'cache-control': CACHE_CONTROL,
      'x-content-type-options': 'nosniff',
    };
    // GET answers of public operations may be cached by proxies and CDNs, and revalidated by ETag.
    if (binding === 'httpget' && !operation.endpoint.requiresToken) {
      headers['cache-control'] = `public, max-age=${httpMaxAge}`;
    }
    return headers;
  }

  /** RFC 9110 §13.1.2: a GET whose If-None-Match names the current tag gets 304, no body. */
  function notModified(
    req: IncomingMessage,
    res: ServerResponse,
    headers: Readonly<Record<string, string>>,
    observation: Observation,
  ): boolean {
    if (!headers.etag || !noneMatch(single(req.headers['if-none-match']), headers.etag)) return false;
    const { 'content-type': _type, 'content-length': _length, ...rest } = headers;
    res.writeHead(304, { ...rest, 'x-request-id': observation.id }).end();
    return true;
  }

  async function answerFromCache(
    req: IncomingMessage,
    res: ServerResponse,
    hit: CachedAnswer,
    observation: Observation,
    call: { value: Call | undefined },
    admission: Admission | undefined,
  ): Promise<void> {
    call.value = hit.call;
    if (hit.call.authenticate) await authenticate(hit.call.token, admission);
    writeCached(req, res, hit, observation);
  }

  /** Writes a cached answer: a 304 to a GET whose If-None-Match names it, else its bytes. */
  function writeCached(
    req: IncomingMessage,
    res: ServerResponse,
    hit: CachedAnswer,
    observation: Observation,
  ): void {
    observation.operation = hit.call.operation.name;
    observation.binding = hit.call.binding;
    if (hit.call.binding === 'httpget' && req.headers['if-none-match'] !== undefined) {
      if (notModified(req, res, hit.headers, observation)) return;
    }
    observation.bytesOut = hit.body.length;
    res.writeHead(200, answerHead(hit, observation.id));
    res.end(req.method === 'HEAD' ? undefined : hit.body);
  }

  /**
   * Answers from the cache without waiting for anything, when it can: the content and
   * token versions are known at once, the answer is cached, and its token was verified for
   * the current token version. Any doubt, and every refusal, is left to the full path.
   */
  function answerNow(
    req: IncomingMessage,
    res: ServerResponse,
    key: RequestKey,
    observation: Observation,
  ): boolean {
    const version = options.store.peekVersion();
    if (version === undefined) return false;
    // Looked up again by the full path when not answered here: counted there, or here on a hit.
    const hit = responses!.get(key, version, context.now(), false);
    if (hit === undefined || (hit.call.authenticate && !authenticator.verifiedNow(hit.call.token)))
      return false;
    answerHits?.inc();
    writeCached(req, res, hit, observation);
    return true;
  }

  function toScoopError(caught: unknown, observation: Observation, path: string): ScoopError {
    if (isScoopError(caught)) return caught;
    if (caught instanceof StoreUnavailableError) {
      logger.warn({ reqId: observation.id, err: caught.message }, 'store unavailable');
      return new ScoopError('UNAVAILABLE', 'The service cannot reach its content store; retry shortly.', {
        retryAfterSeconds: 1,
      });
    }
    logger.error({ reqId: observation.id, err: caught, path }, 'request failed');
    return new ScoopError('INTERNAL', 'An internal error occurred.');
  }

  const maxHeaders = options.maxHeaders ?? DEFAULT_SERVER_LIMITS.maxHeaders;
  /** Cached answers may go out synchronously; with a rate limit every request takes the full path. */
  const answersNow = responses !== undefined && rateLimiter === undefined;

  /**
   * A request's entry: a cached answer goes out at once when it can (GET at once, POST
   * once its body is read), with no promise of its own; everything else takes the full
   * path. Resolves (when it returns a promise) once the answer is written; a POST's full
   * path, started from the body's callback, handles its own failures.
   */
  function handle(req: IncomingMessage, res: ServerResponse): Promise<void> | undefined {
    const { path, query } = splitUrl(req.url ?? '/');
    const observation = observer.start(req, res, path);
    const target = route(path);
    if (!answersNow || draining || target.kind === 'none')
      return respond(req, res, path, query, observation, target);
    const soap = { guess: '1.1' as SoapVersion };
    const method = req.method;
    if (
      method === 'GET' ? target.kind !== 'http' : method !== 'POST' || !keyedOnBody(req, target.kind, soap)
    ) {
      return respond(req, res, path, query, observation, target);
    }
    try {
      checkRequestHeaders(req, maxHeaders);
    } catch {
      return respond(req, res, path, query, observation, target);
    }
    if (method === 'GET') {
      const key = cacheKey(req, undefined);
      if (key !== undefined && answerNow(req, res, key, observation)) return undefined;
      return respond(req, res, path, query, observation, target, { headersChecked: true });
    }
    collectBody(req, options.maxBodyBytes, (error, read) => {
      if (read) {
        observation.bytesIn = read.length;
        const key = cacheKey(req, read);
        if (key !== undefined && answerNow(req, res, key, observation)) return;
      }
      // The full path takes the same body, or renders its refusal.
      const body = read ? Promise.resolve(read) : Promise.reject(error);
      // Handled where the full path awaits it; marked so here in case a refusal comes first.
      body.catch(() => undefined);
      respond(req, res, path, query, observation, target, { headersChecked: true, body }).catch(
        (failure: unknown) => unhandled(res, failure),
      );
    });
    return undefined;
  }

  /** What escapes the lifecycle's own error handling (a bug): logged, and the connection cut. */
  function unhandled(res: ServerResponse, failure: unknown): void {
    logger.error({ err: failure }, 'unhandled request failure');
    res.destroy();
  }

  /** The full lifecycle, every stage; `early` carries what the entry already did. */
  async function respond(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
    observation: Observation,
    target: Route,
    early: { headersChecked?: boolean; body?: Promise<Buffer> } = {},
  ): Promise<void> {
    // While draining for shutdown, every answer closes its connection.
    if (draining) res.setHeader('connection', 'close');
    const soap = { guess: '1.1' as SoapVersion };
    let binding: 'soap' | 'http' = target.kind === 'soap' ? 'soap' : 'http';
    let call: Call | undefined;
    const isRead = req.method === 'GET' || req.method === 'HEAD';
    let admission: Admission | undefined;
    try {
      // Every request is charged to its address before anything else (rate-limit.ts).
      if (rateLimiter) {
        try {
          admission = rateLimiter.admitAddress(
            req.socket.remoteAddress,
            bearerToken(single(req.headers.authorization)),
          );
        } catch (refusal) {
          // Answered as the request would be: a SOAP fault (by Content-Type) for a POST to an endpoint.
          if (target.kind === 'soap' && req.method === 'POST') {
            soap.guess = versionByMediaType(parseMediaType(req.headers['content-type']));
          } else {
            binding = 'http';
          }
          throw refusal;
        }
      }
      if (!early.headersChecked) checkRequestHeaders(req, maxHeaders);
      if (target.kind === 'none') {
        const doc = isRead ? describe.forPath(path) : undefined;
        if (!doc) throw new ScoopError('NOT_FOUND', 'There is nothing at this path.');
        return await sendDocument(req, res, doc, observation);
      }
      if (target.kind === 'soap' && isRead) {
        binding = 'http';
        return await sendDocument(req, res, describe.forEndpoint(req, target.endpoint, query), observation);
      }
      if (target.kind === 'soap' && req.method !== 'POST') {
        binding = 'http';
        throw new ScoopError(
          'METHOD_NOT_ALLOWED',
          `${target.endpoint.path} takes SOAP requests by POST, and GET for its help page and WSDL.`,
        );
      }
      const preread = keyedOnBody(req, target.kind, soap)
        ? await (early.body ?? readCountedBody(req, observation))
        : undefined;
      const key = responses ? cacheKey(req, preread) : undefined;
      const version = key ? await options.store.knownVersion() : 0;
      const hit = key ? responses!.get(key, version, context.now()) : undefined;
      if (hit) {
        const holder = { value: call };
        try {
          return await answerFromCache(req, res, hit, observation, holder, admission);
        } finally {
          call = holder.value;
        }
      }
      if (target.kind === 'soap') {
        call = await decodeSoap(req, target.endpoint, soap, observation, preread);
      } else {
        call = await decodeHttp(req, target.endpoint, target.operationName, query, observation, preread);
      }
      observation.operation = call.operation.name;
      observation.binding = call.binding;
      const { parts, expiresAt } = await invoke(call, admission);
      const headers = successHeaders(call.binding, call.operation, call.soapVersion);
      if (call.binding === 'httpget') {
        const tag = entityTag(parts);
        if (tag) headers.etag = tag;
      }
      if (key && responses && bodyLength(parts) <= MAX_CACHED_ANSWER) {
        const body = await materialize(parts);
        responses.set(key, {
          version,
          expiresAt,
          headers,
          body,
          head: cachedHead(headers, body.length),
          call,
        });
        if (call.binding === 'httpget' && notModified(req, res, headers, observation)) return;
        await sendParts(
          res,
          200,
          { ...headers, 'x-request-id': observation.id },
          [body],
          req.method !== 'HEAD',
          observation,
        );
        return;
      }
      if (call.binding === 'httpget' && notModified(req, res, headers, observation)) return;
      await sendParts(
        res,
        200,
        { ...headers, 'x-request-id': observation.id },
        parts,
        req.method !== 'HEAD',
        observation,
        options.base64Cache,
      );
    } catch (caught) {
      const error = toScoopError(caught, observation, path);
      observation.outcome = error.code;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const rendered =
        binding === 'soap' && !HTTP_LEVEL.has(error.code)
          ? renderSoapFault(error, call?.soapVersion ?? soap.guess, namespace)
          : renderHttpError(error, namespace);
      const headers: Record<string, string> = {
        'content-type': rendered.contentType,
        'cache-control': 'private',
        'x-content-type-options': 'nosniff',
        'x-request-id': observation.id,
        ...rendered.headers,
      };
      if (error.code === 'METHOD_NOT_ALLOWED') headers.allow = 'GET, HEAD, POST';
      // RFC 9110 §10.2.3: tell a client that was refused for load or limits when to retry.
      if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
      // The rest of an oversized body is never read, so this connection cannot be reused.
      if (error.code === 'BODY_TOO_LARGE') headers.connection = 'close';
      await sendParts(res, rendered.status, headers, [rendered.body], req.method !== 'HEAD', observation);
    }
  }

  return Object.assign(handle, {
    /** From now on every answer closes its connection (graceful shutdown). */
    drain() {
      draining = true;
    },
  });
}
