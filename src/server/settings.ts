/**
 * Settings of the `serve` command: flags win over environment variables, which win
 * over the defaults. Every setting is documented in the README's configuration table.
 */
import path from 'node:path';
import { parseColour } from '../images/colour.ts';
import { DEFAULT_IMAGE_SETTINGS, type ImageSettings, workerShare } from '../images/image-settings.ts';
import { isPostgresUrl } from '../store/postgres/url.ts';
import { DEFAULT_RECORD_CACHE_BYTES } from '../store/record-cache.ts';
import type { XmlLimits } from '../xml/document.ts';
import { isHostName } from './admin-hosts.ts';
import {
  bodyLimits,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_BODY_BYTES_IN_FLIGHT,
  DEFAULT_SERVER_LIMITS,
  rateLimit,
  type ServerLimits,
  serverLimits,
  xmlLimits,
} from './limit-settings.ts';
import type { RateLimit } from './rate-limit.ts';
import {
  deprecatedSettings,
  type Env,
  type Flags,
  integer,
  onOff,
  pick,
  renamed,
  SettingsError,
} from './setting-values.ts';
import { type ShadowSettings, shadowSettings } from './shadow-settings.ts';

export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_BODY_BYTES_IN_FLIGHT,
  DEFAULT_SERVER_LIMITS,
  deprecatedSettings,
  type Flags,
  type ServerLimits,
  SettingsError,
};

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
  /** Request bodies held at once by the process, all requests together. */
  readonly maxBodyBytesInFlight: number;
  readonly maxListItems: number;
  readonly maxImageDimension: number;
  readonly xmlLimits: XmlLimits;
  readonly server: ServerLimits;
  /** getBild resizing: queue, pixel limit, variant cache, padding colour. */
  readonly images: ImageSettings;
  readonly logLevel: string;
  readonly adminHost: string;
  /** Host names the admin listener answers to besides IP literals and localhost (DNS rebinding). */
  readonly adminHostnames: readonly string[];
  /** undefined: no admin listener. */
  readonly adminPort: number | undefined;
  readonly rateLimit: RateLimit | undefined;
  /** Browser origins that may call the JSON API (`https://app.example.org`, as browsers send Origin). */
  readonly corsOrigins: readonly string[];
  /** Memory for hot records; the cache is dropped whenever an import changes the content. */
  readonly recordCacheBytes: number;
  /** Memory for whole successful answers, per content version; 0 turns the cache off. */
  readonly responseCacheBytes: number;
  /** Bound of the answer pack's file (prepare/answer-pack.ts), in the base64 cache's folder; 0: none. */
  readonly answerPackBytes: number;
  /** Bound of the answer cache's file tier (server/answer-file.ts), in the base64 cache's folder; 0: none. */
  readonly answerFileBytes: number;
  /** The base64 cache: files of large binaries' base64 text (cache/base64-cache.ts). */
  readonly base64Cache: Base64CacheSettings;
  /** Processes serving on one machine (node:cluster); 1 = no cluster (see cluster.ts). */
  readonly workers: number;
  /** `--shadow`: replay a sample of the answered requests to the original (shadow.ts); undefined when off. */
  readonly shadow: ShadowSettings | undefined;
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

export const DEFAULT_DB = './data/scoop.db';
export const DEFAULT_NAMESPACE = 'http://scoop.example.org/api';

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

function adminHostnames(value: string | undefined): string[] {
  const names = (value ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const bad = names.find((n) => !isHostName(n));
  if (bad !== undefined)
    throw new SettingsError(
      `SCOOP_ADMIN_HOSTNAMES must list host names such as metrics.internal, not ${JSON.stringify(bad)}`,
    );
  return names;
}

/**
 * Origins as a browser sends them in `Origin` (RFC 6454 §6.2: scheme, host and a port other
 * than the scheme's default, lower case), so they compare as strings; each must be just
 * that — no path, no wildcard (a token-carrying API is opened to named front ends only).
 */
export function corsOrigins(value: string | undefined): string[] {
  const listed = (value ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  return listed.map((given) => {
    let url: URL | undefined;
    try {
      url = new URL(given);
    } catch {
      url = undefined;
    }
    const bare = /^https?:\/\/[^\s/?#@]+\/?$/i.test(given);
    if (!url || !bare) {
      throw new SettingsError(
        `SCOOP_CORS_ORIGINS must list origins such as https://app.example.org, not ${JSON.stringify(given)}`,
      );
    }
    return url.origin;
  });
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
    ...bodyLimits(env),
    maxListItems: integer(env.SCOOP_MAX_LIST_ITEMS, 16, 'SCOOP_MAX_LIST_ITEMS', 1, 10_000),
    maxImageDimension: integer(env.SCOOP_MAX_IMAGE_DIMENSION, 4096, 'SCOOP_MAX_IMAGE_DIMENSION', 1, 65_535),
    xmlLimits: xmlLimits(env),
    server: serverLimits(env),
    images: imageSettings(env, databaseSetting(flags, env), workers),
    adminHost: env.SCOOP_ADMIN_HOST ?? '127.0.0.1',
    adminHostnames: adminHostnames(env.SCOOP_ADMIN_HOSTNAMES),
    adminPort:
      env.SCOOP_ADMIN_PORT?.trim().toLowerCase() === 'off'
        ? undefined
        : integer(env.SCOOP_ADMIN_PORT, 9090, 'SCOOP_ADMIN_PORT', 0, 65535),
    rateLimit: rateLimit(env),
    corsOrigins: corsOrigins(env.SCOOP_CORS_ORIGINS),
    recordCacheBytes: integer(
      env.SCOOP_RECORD_CACHE_BYTES,
      DEFAULT_RECORD_CACHE_BYTES,
      'SCOOP_RECORD_CACHE_BYTES',
      0,
      2 ** 40,
    ),
    responseCacheBytes: integer(
      env.SCOOP_RESPONSE_CACHE_BYTES,
      16 * 1024 * 1024,
      'SCOOP_RESPONSE_CACHE_BYTES',
      0,
      2 ** 40,
    ),
    base64Cache: base64CacheSettings(env, databaseSetting(flags, env)),
    answerPackBytes: integer(env.SCOOP_ANSWER_PACK_BYTES, 1024 ** 3, 'SCOOP_ANSWER_PACK_BYTES', 0, 2 ** 50),
    answerFileBytes: integer(
      env.SCOOP_RESPONSE_FILE_BYTES,
      1024 ** 3,
      'SCOOP_RESPONSE_FILE_BYTES',
      0,
      2 ** 50,
    ),
    logLevel: logLevel(env.SCOOP_LOG_LEVEL),
    workers,
    shadow: shadowSettings(flags, env, variantDir(env, databaseSetting(flags, env))),
    deprecations: deprecatedSettings(env),
  };
}

/** pino's level names, and `silent`; anything else would make pino throw at start. */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(value: string | undefined): string {
  const level = value?.trim().toLowerCase() ?? 'info';
  if (!LOG_LEVELS.includes(level))
    throw new SettingsError(
      `SCOOP_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(value)}`,
    );
  return level;
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
