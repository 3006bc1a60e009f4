/**
 * Settings of the `serve` command: flags win over environment variables, which win
 * over the defaults. Every setting is documented in the README's configuration table.
 */
import path from 'node:path';
import { parseColour } from '../images/colour.ts';
import { DEFAULT_IMAGE_SETTINGS, type ImageSettings, workerShare } from '../images/image-service.ts';
import { isPostgresUrl } from '../store/postgres/location.ts';
import { DEFAULT_XML_LIMITS, type XmlLimits } from '../xml/reader.ts';
import type { RateLimit } from './rate-limit.ts';

export interface ServeSettings {
  readonly host: string;
  readonly port: number;
  readonly db: string;
  readonly namespace: string;
  readonly publicUrl: string | undefined;
  readonly trustProxy: boolean;
  readonly httpMaxAge: number;
  readonly httpAuth: boolean;
  readonly maxBodyBytes: number;
  readonly maxListItems: number;
  readonly maxImageDimension: number;
  readonly xmlLimits: XmlLimits;
  readonly server: ServerLimits;
  /** getBild resizing: queue, pixel limit, variant cache, padding colour. */
  readonly images: ImageSettings;
  readonly logLevel: string;
  readonly adminHost: string;
  /** undefined: no admin listener. */
  readonly adminPort: number | undefined;
  readonly rateLimit: RateLimit | undefined;
  /** Memory for hot records; the cache is dropped whenever an import changes the content. */
  readonly recordCacheBytes: number;
  /** Memory for whole successful answers, per content version; 0 turns the cache off. */
  readonly responseCacheBytes: number;
  /** The base64 cache: files of large binaries' base64 text (cache/base64-cache.ts). */
  readonly base64Cache: Base64CacheSettings;
  /** Processes serving on one machine (node:cluster); 1 = no cluster (see cluster.ts). */
  readonly workers: number;
  /** Settings read under an old name (RENAMED), each a line for the log at start. */
  readonly deprecations: readonly string[];
}

export interface Base64CacheSettings {
  readonly dir: string;
  /** Bound of the folder; 0 keeps nothing. */
  readonly maxBytes: number;
  /** Set by SCOOP_BASE64_CACHE_DIR: an unusable folder then stops the start instead of turning the cache off. */
  readonly chosen: boolean;
}

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
  shutdownTimeoutMs: 10_000,
};

export const DEFAULT_DB = './data/scoop.db';
export const DEFAULT_NAMESPACE = 'http://scoop.example.org/api';

export type Flags = Readonly<Record<string, string | boolean | undefined>>;
type Env = Readonly<Record<string, string | undefined>>;

export class SettingsError extends Error {}

/** Settings renamed, new name → old name: the old one is still read, with a warning at start. */
const RENAMED: ReadonlyMap<string, string> = new Map([
  ['SCOOP_BASE64_CACHE_DIR', 'SCOOP_BINARY_CACHE_DIR'],
  ['SCOOP_BASE64_CACHE_BYTES', 'SCOOP_BINARY_CACHE_BYTES'],
  ['SCOOP_VARIANT_CACHE_DIR', 'SCOOP_VARIANT_DIR'],
]);

/** A renamed setting's value, and the variable it was read from: its name, else its old name. */
function renamed(env: Env, name: string): { value: string | undefined; variable: string } {
  const old = RENAMED.get(name)!;
  if (env[name] !== undefined || env[old] === undefined) return { value: env[name], variable: name };
  return { value: env[old], variable: old };
}

/** One line for each renamed setting given under its old name, naming the new one. */
export function deprecatedSettings(env: Env): string[] {
  const lines: string[] = [];
  for (const [name, old] of RENAMED) {
    if (env[old] === undefined) continue;
    lines.push(
      env[name] === undefined
        ? `${old} is deprecated: it is read as ${name}, the name to use from now on`
        : `${old} is deprecated and ignored: ${name} is set too, and wins`,
    );
  }
  return lines;
}

function pick(flags: Flags, flag: string, env: Env, variable: string): string | undefined {
  const fromFlag = flags[flag];
  if (typeof fromFlag === 'string') return fromFlag;
  const fromEnv = env[variable];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

function integer(
  value: string | undefined,
  fallback: number,
  name: string,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
    throw new SettingsError(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function onOff(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined) return fallback;
  const v = value.trim().toLowerCase();
  if (['on', 'true', '1', 'yes'].includes(v)) return true;
  if (['off', 'false', '0', 'no'].includes(v)) return false;
  throw new SettingsError(`${name} must be on or off, not ${JSON.stringify(value)}`);
}

/**
 * The base that WSDL addresses are built on: an http(s) URL with a host and an optional
 * path, nothing a client would misread once the endpoint path is appended (no query,
 * fragment, credentials or spaces). Kept as given, without trailing slashes.
 */
function publicUrlSetting(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(value);
  } catch {
    parsed = undefined;
  }
  const shaped = /^https?:\/\/[^\s/?#@]+(?:\/[^\s?#]*)?$/i.test(value);
  if (!parsed || !shaped || parsed.hostname === '') {
    throw new SettingsError(
      `SCOOP_PUBLIC_URL (--public-url) must be an http(s) URL such as https://api.example.org, not ${JSON.stringify(value)}`,
    );
  }
  return value.replace(/\/+$/, '');
}

/**
 * node:http listens on every interface when the host is empty, so an empty or garbled
 * `--host` must be refused rather than widen what the service is reachable from.
 */
function hostSetting(value: string | undefined): string {
  if (value === undefined) return '127.0.0.1';
  if (!/^[A-Za-z0-9._:%-]+$/.test(value)) {
    throw new SettingsError(
      `SCOOP_HOST (--host) must be a host name or IP address such as 127.0.0.1, not ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/**
 * Every request and answer element is qualified with it, and generated clients compare it
 * as a string: an absolute URI (RFC 3986 §4.3) with nothing a client could read differently.
 */
function namespaceSetting(value: string | undefined): string {
  if (value === undefined) return DEFAULT_NAMESPACE;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"'{}|\\^`]+$/.test(value)) {
    throw new SettingsError(
      `SCOOP_NAMESPACE (--namespace) must be an absolute URI such as ${DEFAULT_NAMESPACE}, not ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export function databaseSetting(flags: Flags, env: Env): string {
  return pick(flags, 'db', env, 'SCOOP_DB') ?? DEFAULT_DB;
}

export function serveSettings(flags: Flags, env: Env): ServeSettings {
  const namespace = namespaceSetting(pick(flags, 'namespace', env, 'SCOOP_NAMESPACE'));
  const publicUrl = publicUrlSetting(pick(flags, 'public-url', env, 'SCOOP_PUBLIC_URL'));
  const workers = integer(pick(flags, 'workers', env, 'SCOOP_WORKERS'), 1, 'SCOOP_WORKERS', 1, 256);
  return {
    host: hostSetting(pick(flags, 'host', env, 'SCOOP_HOST')),
    port: integer(pick(flags, 'port', env, 'SCOOP_PORT'), 8080, 'SCOOP_PORT (--port)', 0, 65535),
    db: databaseSetting(flags, env),
    namespace,
    publicUrl,
    trustProxy: onOff(env.SCOOP_TRUST_PROXY, false, 'SCOOP_TRUST_PROXY'),
    httpMaxAge: integer(env.SCOOP_HTTP_MAX_AGE, 60, 'SCOOP_HTTP_MAX_AGE', 0, 31_536_000),
    httpAuth: onOff(env.SCOOP_HTTP_AUTH, true, 'SCOOP_HTTP_AUTH'),
    maxBodyBytes: integer(env.SCOOP_MAX_BODY_BYTES, 4 * 1024 * 1024, 'SCOOP_MAX_BODY_BYTES', 1024, 1 << 30),
    maxListItems: integer(env.SCOOP_MAX_LIST_ITEMS, 16, 'SCOOP_MAX_LIST_ITEMS', 1, 10_000),
    maxImageDimension: integer(env.SCOOP_MAX_IMAGE_DIMENSION, 4096, 'SCOOP_MAX_IMAGE_DIMENSION', 1, 65_535),
    xmlLimits: xmlLimits(env),
    server: serverLimits(env),
    images: imageSettings(env, databaseSetting(flags, env), workers),
    adminHost: env.SCOOP_ADMIN_HOST ?? '127.0.0.1',
    adminPort:
      env.SCOOP_ADMIN_PORT?.trim().toLowerCase() === 'off'
        ? undefined
        : integer(env.SCOOP_ADMIN_PORT, 9090, 'SCOOP_ADMIN_PORT', 0, 65535),
    rateLimit: rateLimit(env),
    recordCacheBytes: integer(
      env.SCOOP_RECORD_CACHE_BYTES,
      64 * 1024 * 1024,
      'SCOOP_RECORD_CACHE_BYTES',
      0,
      2 ** 40,
    ),
    responseCacheBytes: integer(
      env.SCOOP_RESPONSE_CACHE_BYTES,
      128 * 1024 * 1024,
      'SCOOP_RESPONSE_CACHE_BYTES',
      0,
      2 ** 40,
    ),
    base64Cache: base64CacheSettings(env, databaseSetting(flags, env)),
    logLevel: env.SCOOP_LOG_LEVEL ?? 'info',
    workers,
    deprecations: deprecatedSettings(env),
  };
}

function xmlLimits(env: Env): XmlLimits {
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
  };
}

function serverLimits(env: Env): ServerLimits {
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
    shutdownTimeoutMs: ms('SCOOP_SHUTDOWN_TIMEOUT_MS', d.shutdownTimeoutMs),
  };
}

function rateLimit(env: Env): RateLimit | undefined {
  const perSecond = integer(env.SCOOP_RATE_LIMIT, 0, 'SCOOP_RATE_LIMIT', 0, 1_000_000);
  if (perSecond === 0) return undefined;
  return {
    perSecond,
    burst: integer(env.SCOOP_RATE_BURST, perSecond * 2, 'SCOOP_RATE_BURST', 1, 10_000_000),
  };
}

/**
 * The variant cache lives next to the SQLite file unless SCOOP_VARIANT_CACHE_DIR says
 * otherwise; with PostgreSQL there is no file, and it is ./data/variants (on each machine).
 */
function variantDir(env: Env, db: string): string {
  const chosen = renamed(env, 'SCOOP_VARIANT_CACHE_DIR').value;
  if (chosen) return chosen;
  if (isPostgresUrl(db)) return path.join(path.dirname(DEFAULT_DB), 'variants');
  const file = db.startsWith('sqlite:') ? db.slice('sqlite:'.length) : db;
  return path.join(path.dirname(file), 'variants');
}

/** Beside the variant folder (`binaries/` next to `variants/`), so a deployment that lets scoop write one writes both. */
export function base64CacheSettings(env: Env, db: string): Base64CacheSettings {
  const chosen = renamed(env, 'SCOOP_BASE64_CACHE_DIR').value;
  const bytes = renamed(env, 'SCOOP_BASE64_CACHE_BYTES');
  return {
    dir: chosen || path.join(path.dirname(variantDir(env, db)), 'binaries'),
    maxBytes: integer(bytes.value, 1024 ** 3, bytes.variable, 0, 2 ** 50),
    chosen: Boolean(chosen),
  };
}

/** The resize slots and queue are the instance's: each of its `workers` processes gets a share. */
function imageSettings(env: Env, db: string, workers: number): ImageSettings {
  const d = DEFAULT_IMAGE_SETTINGS;
  const colour = env.SCOOP_IMAGE_BACKGROUND;
  const background = colour ? parseColour(colour) : d.background;
  if (background === undefined) {
    throw new SettingsError(
      `SCOOP_IMAGE_BACKGROUND must be a colour as #rgb, #rgba, #rrggbb or #rrggbbaa, not ${JSON.stringify(colour)}`,
    );
  }
  return {
    ...workerShare(
      {
        concurrency:
          env.SCOOP_RESIZE_CONCURRENCY === undefined
            ? undefined
            : integer(env.SCOOP_RESIZE_CONCURRENCY, 1, 'SCOOP_RESIZE_CONCURRENCY', 1, 256),
        maxWaiting: integer(env.SCOOP_RESIZE_QUEUE, d.maxWaiting, 'SCOOP_RESIZE_QUEUE', 0, 100_000),
      },
      workers,
    ),
    maxPixels: integer(env.SCOOP_MAX_IMAGE_PIXELS, d.maxPixels, 'SCOOP_MAX_IMAGE_PIXELS', 1, 1_000_000_000),
    cacheDir: variantDir(env, db),
    cacheBytes: integer(env.SCOOP_VARIANT_CACHE_BYTES, d.cacheBytes, 'SCOOP_VARIANT_CACHE_BYTES', 0, 2 ** 50),
    background,
    timeoutSeconds: integer(
      env.SCOOP_RESIZE_TIMEOUT_SECONDS,
      d.timeoutSeconds,
      'SCOOP_RESIZE_TIMEOUT_SECONDS',
      1,
      3600,
    ),
    svg: onOff(env.SCOOP_RESIZE_SVG, d.svg, 'SCOOP_RESIZE_SVG'),
  };
}
