/** The settings that bound work: request bodies, XML, the HTTP server's transport, the rate limit. */
import { DEFAULT_XML_LIMITS, type XmlLimits } from '../xml/document.ts';
import type { RateLimit } from './rate-limit.ts';
import { type Env, integer, SettingsError } from './setting-values.ts';

/** Transport limits of the HTTP server (node:http), each configurable. */
export interface ServerLimits {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxHeaderBytes: number;
  readonly maxHeaders: number;
  readonly maxConnections: number;
  /**
   * Connections the kernel queues before the server accepts them. Node's default of 511
   * overflows when many clients connect at once (their SYNs are dropped and retried after
   * 1, 3, 7 s); the kernel caps the value at net.core.somaxconn.
   */
  readonly listenBacklog: number;
  /**
   * Request work one event-loop turn does before later requests wait for the next turn, so
   * that new connections are accepted while the server is saturated (turns.ts); 0: no bound.
   */
  readonly turnBudgetMs: number;
  readonly shutdownTimeoutMs: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  maxHeaders: 64,
  maxConnections: 4096,
  listenBacklog: 4096,
  turnBudgetMs: 1,
  shutdownTimeoutMs: 10_000,
};

/**
 * The largest legitimate request is under 2 KB (a getBild with SCOOP_MAX_LIST_ITEMS
 * resizeModes in a SOAP envelope with its token header); 64 KiB leaves room for SOAP
 * headers a client stack adds (WS-Addressing, a signature) many times over.
 */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
/** 512 bodies at the default limit, or some 16,000 legitimate ones, at once. */
export const DEFAULT_MAX_BODY_BYTES_IN_FLIGHT = 32 * 1024 * 1024;

export function bodyLimits(env: Env): { maxBodyBytes: number; maxBodyBytesInFlight: number } {
  const maxBodyBytes = integer(
    env.SCOOP_MAX_BODY_BYTES,
    DEFAULT_MAX_BODY_BYTES,
    'SCOOP_MAX_BODY_BYTES',
    1024,
    1 << 30,
  );
  const maxBodyBytesInFlight = integer(
    env.SCOOP_MAX_BODY_BYTES_IN_FLIGHT,
    Math.max(DEFAULT_MAX_BODY_BYTES_IN_FLIGHT, maxBodyBytes),
    'SCOOP_MAX_BODY_BYTES_IN_FLIGHT',
    1024,
    2 ** 40,
  );
  // A body the budget can never hold would be refused BUSY forever.
  if (maxBodyBytesInFlight < maxBodyBytes) {
    throw new SettingsError(
      `SCOOP_MAX_BODY_BYTES_IN_FLIGHT (${maxBodyBytesInFlight}) must not be below SCOOP_MAX_BODY_BYTES (${maxBodyBytes})`,
    );
  }
  return { maxBodyBytes, maxBodyBytesInFlight };
}

export function xmlLimits(env: Env): XmlLimits {
  const d = DEFAULT_XML_LIMITS;
  return {
    maxDepth: integer(env.SCOOP_XML_MAX_DEPTH, d.maxDepth, 'SCOOP_XML_MAX_DEPTH', 4, 1000),
    maxElements: integer(env.SCOOP_XML_MAX_ELEMENTS, d.maxElements, 'SCOOP_XML_MAX_ELEMENTS', 16, 10_000_000),
    maxAttributes: integer(
      env.SCOOP_XML_MAX_ATTRIBUTES,
      d.maxAttributes,
      'SCOOP_XML_MAX_ATTRIBUTES',
      4,
      10_000,
    ),
    maxDocumentAttributes: integer(
      env.SCOOP_XML_MAX_DOCUMENT_ATTRIBUTES,
      d.maxDocumentAttributes,
      'SCOOP_XML_MAX_DOCUMENT_ATTRIBUTES',
      4,
      10_000_000,
    ),
    maxNameLength: integer(
      env.SCOOP_XML_MAX_NAME_LENGTH,
      d.maxNameLength,
      'SCOOP_XML_MAX_NAME_LENGTH',
      16,
      65_536,
    ),
    maxTextLength: integer(
      env.SCOOP_XML_MAX_TEXT_LENGTH,
      d.maxTextLength,
      'SCOOP_XML_MAX_TEXT_LENGTH',
      64,
      1 << 30,
    ),
    maxAttributeLength: integer(
      env.SCOOP_XML_MAX_ATTRIBUTE_LENGTH,
      d.maxAttributeLength,
      'SCOOP_XML_MAX_ATTRIBUTE_LENGTH',
      64,
      1 << 30,
    ),
  };
}

export function serverLimits(env: Env): ServerLimits {
  const d = DEFAULT_SERVER_LIMITS;
  const ms = (name: string, fallback: number) => integer(env[name], fallback, name, 100, 3_600_000);
  const headersTimeoutMs = ms('SCOOP_HEADERS_TIMEOUT_MS', d.headersTimeoutMs);
  const requestTimeoutMs = ms('SCOOP_REQUEST_TIMEOUT_MS', d.requestTimeoutMs);
  // The head is part of the request: node refuses to start with a longer head timeout.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new SettingsError(
      `SCOOP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed SCOOP_REQUEST_TIMEOUT_MS (${requestTimeoutMs})`,
    );
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: ms('SCOOP_KEEP_ALIVE_TIMEOUT_MS', d.keepAliveTimeoutMs),
    maxHeaderBytes: integer(
      env.SCOOP_MAX_HEADER_BYTES,
      d.maxHeaderBytes,
      'SCOOP_MAX_HEADER_BYTES',
      1024,
      1 << 20,
    ),
    maxHeaders: integer(env.SCOOP_MAX_HEADERS, d.maxHeaders, 'SCOOP_MAX_HEADERS', 8, 1000),
    maxConnections: integer(
      env.SCOOP_MAX_CONNECTIONS,
      d.maxConnections,
      'SCOOP_MAX_CONNECTIONS',
      1,
      1_000_000,
    ),
    listenBacklog: integer(env.SCOOP_LISTEN_BACKLOG, d.listenBacklog, 'SCOOP_LISTEN_BACKLOG', 1, 65_535),
    turnBudgetMs: integer(env.SCOOP_TURN_BUDGET_MS, d.turnBudgetMs, 'SCOOP_TURN_BUDGET_MS', 0, 1000),
    shutdownTimeoutMs: ms('SCOOP_SHUTDOWN_TIMEOUT_MS', d.shutdownTimeoutMs),
  };
}

export function rateLimit(env: Env): RateLimit | undefined {
  const perSecond = integer(env.SCOOP_RATE_LIMIT, 0, 'SCOOP_RATE_LIMIT', 0, 1_000_000);
  if (perSecond === 0) return undefined;
  return {
    perSecond,
    burst: integer(env.SCOOP_RATE_BURST, perSecond * 2, 'SCOOP_RATE_BURST', 1, 10_000_000),
  };
}
