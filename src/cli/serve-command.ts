import pino, { type Logger } from 'pino';
import { Base64Cache } from '../cache/base64-cache.ts';
import { CacheDirError } from '../cache/bounded-folder.ts';
import { ImageService } from '../images/image-service.ts';
import { isoTime, logDestination } from '../observe/log-destination.ts';
import { cacheLookupCounter, createMetrics, type Metrics } from '../observe/metrics.ts';
import { requestLineWriter } from '../observe/request-line.ts';
import { AnswerPack } from '../prepare/answer-pack.ts';
import { PackFiller } from '../prepare/pack-filler.ts';
import { answerPreparer } from '../prepare/prepare-answers.ts';
import {
  registerAnswerPackMetrics,
  registerImageMetrics,
  registerLogMetrics,
  registerStoreMetrics,
  startAdminServer,
  storeProbes,
} from '../server/admin-server.ts';
import { AnswerFile } from '../server/answer-file.ts';
import {
  becomesPrimary,
  isWorker,
  joinCluster,
  leaveCluster,
  logBase,
  runPrimary,
} from '../server/cluster.ts';
import { startServer } from '../server/http-server.ts';
import {
  type Base64CacheSettings,
  type ServeSettings,
  SettingsError,
  serveSettings,
} from '../server/settings.ts';
import { Shadow } from '../server/shadow.ts';
import { ShadowFolder } from '../server/shadow-folder.ts';
import type { ShadowSettings } from '../server/shadow-settings.ts';
import { BundleError } from '../store/bundle/validate.ts';
import type { ContentStore } from '../store/content-store.ts';
import { importFolder } from '../store/import.ts';
import { openStore } from '../store/open-store.ts';
import { redactLocation } from '../store/postgres/url.ts';
import { base64Chunks } from '../xml/binary.ts';
import { logContentVersionChanges } from './content-version-log.ts';
import { formatSummary } from './import-command.ts';
import { keepLargeBinaries } from './keep-binaries.ts';
import { listenRefusal } from './listen-refusal.ts';
import { parseCommand, UsageError } from './usage.ts';

const HELP = `Usage: scoop serve [--host H] [--port P] [--db PATH] [--namespace NS] [--public-url URL] [--seed BUNDLE]
                   [--workers N] [--shadow URL [--shadow-sample SHARE] [--shadow-token GUID]]

Serves the four endpoints (SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST).

Options (each also an environment variable):
  --host H          SCOOP_HOST        address to listen on (default 127.0.0.1)
  --port P          SCOOP_PORT        port (default 8080)
  --db PATH|URL     SCOOP_DB          SQLite file (default ./data/scoop.db) or
                                      postgres://user@host:5432/db[?schema=NAME]; migrated at start
  --namespace NS    SCOOP_NAMESPACE   XML namespace (default http://scoop.example.org/api)
  --public-url URL  SCOOP_PUBLIC_URL  public base URL, for WSDL addresses
  --seed BUNDLE                       import BUNDLE first if the store has never been imported into
  --workers N       SCOOP_WORKERS     processes serving on this machine (node:cluster; default 1 = no
                                      cluster): a primary seeds, forks N workers, replaces one that
                                      exits, answers the admin listener for all, drains all on SIGTERM
  --shadow URL      SCOOP_SHADOW      the original's base URL: replay a sample of the answered requests
                                      to it in the background and report differences (docs/migration.md#shadow)
  --shadow-sample SHARE  SCOOP_SHADOW_SAMPLE  share of requests replayed, 0 to 1 (default 0.1)
  --shadow-token GUID    SCOOP_SHADOW_TOKEN   the original's token for the replays (default: the client's)
                    SCOOP_HTTP_AUTH   on (default) or off: whether HTTP GET/POST need a token
                    SCOOP_TRUST_PROXY on or off (default): use X-Forwarded-Proto/-Host in URLs
                    SCOOP_ADMIN_HOST, SCOOP_ADMIN_PORT  admin listener (/metrics, /healthz, /readyz;
                                      default 127.0.0.1:9090, SCOOP_ADMIN_PORT=off disables it)
See the README for every setting.`;

/** Only this machine can reach these (RFC 6761 §6.3 localhost; 127.0.0.0/8; ::1). */
function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * Without SCOOP_PUBLIC_URL, WSDL and DISCO addresses are built from each request's Host
 * (describe-routes.ts): on a loopback address only local clients (or a proxy) choose it,
 * elsewhere any client can make the WSDL it is given point anywhere.
 */
export function publicUrlWarning(host: string, publicUrl: string | undefined): string | undefined {
  if (publicUrl !== undefined || isLoopback(host)) return undefined;
  return `serving on ${host} without SCOOP_PUBLIC_URL: WSDL and DISCO addresses follow each request's Host header; set SCOOP_PUBLIC_URL (--public-url) to the address clients use`;
}

/** SCOOP_HTTP_AUTH=off opens the token-protected operations to anyone over HTTP GET/POST. */
export const HTTP_AUTH_OFF_WARNING =
  'SCOOP_HTTP_AUTH=off: HTTP GET and POST calls of scoop.asmx operations need no token, so anyone who reaches this server can call them (SOAP still needs one)';

export async function serveCommand(args: string[]): Promise<number> {
  const parsed = parseCommand(
    args,
    {
      host: { type: 'string' },
      port: { type: 'string' },
      db: { type: 'string' },
      namespace: { type: 'string' },
      'public-url': { type: 'string' },
      seed: { type: 'string' },
      workers: { type: 'string' },
      shadow: { type: 'string' },
      'shadow-sample': { type: 'string' },
      'shadow-token': { type: 'string' },
    },
    HELP,
  );
  if (!parsed) return 0;
  if (parsed.positionals.length > 0)
    throw new UsageError(`unexpected argument ${parsed.positionals[0]}\n\n${HELP}`);
  let settings: ReturnType<typeof serveSettings>;
  try {
    settings = serveSettings(parsed.values, process.env);
  } catch (error) {
    if (error instanceof SettingsError) throw new UsageError(error.message);
    throw error;
  }
  const logOutput = logDestination(1);
  const logger = pino(
    {
      level: settings.logLevel,
      base: logBase(),
      // `level` as its name and `time` as ISO 8601 (docs/operations.md).
      formatters: { level: (label) => ({ level: label }) },
      timestamp: isoTime,
    },
    logOutput,
  );
  // Once per start: a cluster's workers read the same settings again.
  if (!isWorker) for (const line of settings.deprecations) logger.warn(line);
  const addressWarning = publicUrlWarning(settings.host, settings.publicUrl);
  if (!isWorker && addressWarning) logger.warn({ host: settings.host }, addressWarning);
  if (!isWorker && !settings.httpAuth) logger.warn(HTTP_AUTH_OFF_WARNING);
  const metrics = createMetrics();
  registerLogMetrics(metrics, logOutput);
  const store = await openStore(settings.db, {
    serving: true,
    onCreated: (file) => logger.info({ db: file }, 'created a new store'),
    cacheBytes: settings.recordCacheBytes,
    cacheObserver: { lookup: cacheLookupCounter(metrics, 'records') },
    onBackgroundError: (err: unknown) => logger.warn({ err: String(err) }, 'store connection trouble'),
  });
  registerStoreMetrics(metrics, store);
  const seed = parsed.values.seed;
  // With --workers the primary has seeded before forking (cluster.ts).
  const versionAtStart = await store.contentVersion();
  if (typeof seed === 'string' && !isWorker && versionAtStart > 0) {
    logger.info({ seed, contentVersion: versionAtStart }, 'seed skipped: the store already has content');
  }
  if (typeof seed === 'string' && !isWorker && versionAtStart === 0) {
    try {
      const summary = await importFolder(store, seed, { answers: answerPreparer() });
      for (const warning of summary.warnings) logger.warn({ seed }, `seed: ${warning}`);
      process.stderr.write(
        `Imported ${seed} into ${redactLocation(settings.db)}:\n${formatSummary(summary)}\n`,
      );
      await keepLargeBinaries(store, settings.base64Cache, (line) => logger.warn(line));
    } catch (error) {
      if (error instanceof BundleError) {
        process.stderr.write(`scoop serve: the seed bundle was refused: ${error.message}\n`);
        await store.close();
        return 1;
      }
      throw error;
    }
  }
  // Opened in a cluster's primary too, so a bad folder stops the start before any fork.
  let images: ImageService;
  try {
    images = await ImageService.open(settings.images, {
      onError: (err: unknown) => logger.warn({ err }, 'variant cache file failed; answered without it'),
      onCacheLookup: cacheLookupCounter(metrics, 'variants'),
    });
  } catch (error) {
    if (!(error instanceof CacheDirError)) throw error;
    process.stderr.write(
      `scoop serve: SCOOP_VARIANT_CACHE_DIR ${error.dir} cannot be used for the variant cache (${error.reason}); ` +
        'make it writable for this user, or set SCOOP_VARIANT_CACHE_BYTES=0 to serve without the cache\n',
    );
    await store.close();
    return 1;
  }
  const base64Cache = await openBase64Cache(settings.base64Cache, metrics, logger);
  if (!base64Cache) {
    images.close();
    await store.close();
    return 1;
  }
  const shadow = await openShadow(settings.shadow, metrics, logger);
  if (shadow === 'refused') {
    images.close();
    await store.close();
    return 1;
  }
  if (becomesPrimary(settings)) {
    await shadow?.close();
    images.close();
    await store.close();
    return runPrimary(settings, logger);
  }
  registerImageMetrics(metrics, images);
  joinCluster(metrics.registry, storeProbes(metrics, store).readiness);
  // Each worker's own (a cluster's primary serves nothing).
  const answerPack = openAnswerPack(settings, base64Cache, metrics, logger);
  const answerFile = openAnswerFile(settings, base64Cache, logger);
  const running = await startServer(
    {
      store,
      namespace: settings.namespace,
      publicUrl: settings.publicUrl,
      trustProxy: settings.trustProxy,
      httpMaxAge: settings.httpMaxAge,
      responseCacheBytes: settings.responseCacheBytes,
      answerFile,
      httpAuth: settings.httpAuth,
      maxBodyBytes: settings.maxBodyBytes,
      maxBodyBytesInFlight: settings.maxBodyBytesInFlight,
      maxListItems: settings.maxListItems,
      xmlLimits: settings.xmlLimits,
      service: { maxImageDimension: settings.maxImageDimension },
      images,
      base64Cache,
      answerPack,
      logger,
      requestLine: logger.isLevelEnabled('info') ? requestLineWriter(logOutput, logBase()) : undefined,
      metrics,
      shadow,
      ...(settings.rateLimit ? { rateLimit: settings.rateLimit } : {}),
      corsOrigins: settings.corsOrigins,
    },
    settings.host,
    settings.port,
    settings.server,
  ).catch(async (error: unknown) => {
    await shadow?.close();
    images.close();
    answerPack?.close();
    answerFile?.close();
    await store.close();
    // A cluster's primary reports its workers' failures to listen (cluster.ts).
    if (isWorker) throw error;
    throw listenRefusal(
      error,
      `${settings.host}:${settings.port}`,
      'SCOOP_PORT (--port) or SCOOP_HOST (--host)',
    );
  });
  const filler = answerPack && fillAnswerPack(store, answerPack, base64Cache, logger);
  if (answerPack && filler) registerAnswerPackMetrics(metrics, answerPack, filler);
  const stopForgetting = base64Cache.watchContent(
    () => store.contentVersion(),
    (sha256) => store.binaryInUse(sha256),
  );
  const stopVersionLog = logContentVersionChanges(store, logger, await store.contentVersion());
  const admin =
    settings.adminPort === undefined || isWorker
      ? undefined
      : await startAdminServer(
          metrics,
          store,
          settings.adminHost,
          settings.adminPort,
          settings.adminHostnames,
        ).catch(async (error: unknown) => {
          stopForgetting();
          stopVersionLog();
          await running.close();
          await filler?.stop();
          answerPack?.close();
          answerFile?.close();
          await shadow?.close();
          images.close();
          await store.close();
          throw listenRefusal(
            error,
            `${settings.adminHost}:${settings.adminPort}`,
            'SCOOP_ADMIN_PORT or SCOOP_ADMIN_HOST (SCOOP_ADMIN_PORT=off turns the admin listener off)',
          );
        });
  // Listened for before the start is announced: a supervisor (or a test) that signals as
  // soon as it reads the line must not meet node's default action, which kills at once.
  const stopSignal = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info(
    { url: running.url, admin: admin?.url, db: redactLocation(settings.db) },
    `scoop listening on ${running.url}${admin ? `, admin on ${admin.url}` : ''}`,
  );
  const signal = await stopSignal;
  logger.info({ signal }, 'shutting down: draining requests in flight');
  stopForgetting();
  stopVersionLog();
  await running.close();
  await shadow?.close();
  await admin?.close();
  images.close();
  await filler?.stop();
  answerPack?.close();
  answerFile?.close();
  await store.close();
  logger.info('stopped');
  leaveCluster();
  return 0;
}

/**
 * The answer pack (prepare/answer-pack.ts): a file in the base64 cache's folder, so none
 * when that cache keeps no files. A file that cannot be made only means answers are read
 * from the store every time (a warning).
 */
function openAnswerPack(
  settings: ServeSettings,
  base64Cache: Base64Cache,
  metrics: Metrics,
  logger: Logger,
): AnswerPack | undefined {
  if (settings.answerPackBytes <= 0 || !base64Cache.keepsFiles) return undefined;
  try {
    return AnswerPack.open({
      dir: settings.base64Cache.dir,
      maxBytes: settings.answerPackBytes,
      onError: (err: unknown) => logger.warn({ err }, 'answer pack failed; answers are read from the store'),
      onLookup: cacheLookupCounter(metrics, 'prepared'),
    });
  } catch (err) {
    logger.warn(
      { err, dir: settings.base64Cache.dir },
      'answer pack not made; answers are read from the store',
    );
    return undefined;
  }
}

/**
 * The answer cache's file tier (server/answer-file.ts), beside the answer pack: none when the
 * answer cache is off or the base64 cache keeps no files. A file that cannot be made only
 * means the answer cache keeps answers in memory alone (a warning).
 */
function openAnswerFile(
  settings: ServeSettings,
  base64Cache: Base64Cache,
  logger: Logger,
): AnswerFile | undefined {
  if (settings.answerFileBytes <= 0 || settings.responseCacheBytes <= 0 || !base64Cache.keepsFiles)
    return undefined;
  try {
    return AnswerFile.open({
      dir: settings.base64Cache.dir,
      maxBytes: settings.answerFileBytes,
      onError: (err: unknown) =>
        logger.warn({ err }, 'answer cache file failed; answers are kept in memory only'),
    });
  } catch (err) {
    logger.warn(
      { err, dir: settings.base64Cache.dir },
      'answer cache file not made; answers are kept in memory only',
    );
    return undefined;
  }
}

/** Fills the pack with every prepared answer, after the start and after each import (pack-filler.ts). */
function fillAnswerPack(
  store: ContentStore,
  pack: AnswerPack,
  base64Cache: Base64Cache,
  logger: Logger,
): PackFiller {
  const filler = new PackFiller({
    store,
    pack,
    texts: base64Cache.keepsFiles ? base64Cache : undefined,
    onError: (err: unknown) =>
      logger.warn({ err }, 'answer pack not filled; answers are kept as they are asked for'),
    onFilled: (version, answers) =>
      logger.info(
        { version, answers, bytes: pack.bytes },
        `answer pack filled: ${answers} answers of version ${version}`,
      ),
    onMoved: (version, move, kept) =>
      logger.info(
        { version, move, answers: kept, bytes: pack.bytes },
        move === 'advanced'
          ? `answer pack moved to version ${version}: ${kept} answers kept, the changed ones are read again`
          : `answer pack emptied for version ${version}`,
      ),
  });
  filler.start();
  return filler;
}

/**
 * `--shadow` (server/shadow.ts). The folder for differing exchanges is as the base64
 * cache's: one the operator chose must be usable; the default one, when it is not, only
 * means nothing is kept (a warning); `SCOOP_SHADOW_DIR=off` keeps nothing.
 */
async function openShadow(
  settings: ShadowSettings | undefined,
  metrics: Metrics,
  logger: Logger,
): Promise<Shadow | undefined | 'refused'> {
  if (!settings) return undefined;
  let folder: ShadowFolder | undefined;
  let shadow: Shadow | undefined;
  if (settings.dir !== undefined) {
    const heading = { original: settings.url.href, tally: () => shadow!.tally() };
    const onError = (err: unknown) => logger.warn({ err }, 'shadow: a differing exchange could not be kept');
    try {
      folder = await ShadowFolder.open(settings.dir, heading, onError);
    } catch (error) {
      if (!(error instanceof CacheDirError)) throw error;
      if (settings.dirChosen) {
        process.stderr.write(
          `scoop serve: SCOOP_SHADOW_DIR ${error.dir} cannot be used for the shadow's exchanges (${error.reason}); ` +
            'make it writable for this user, or set SCOOP_SHADOW_DIR=off to keep none\n',
        );
        return 'refused';
      }
      logger.warn(
        { dir: error.dir, reason: error.reason },
        'shadow folder not usable; differing exchanges are not kept',
      );
    }
  }
  shadow = new Shadow({ ...settings, logger, metrics, folder });
  if (!isWorker)
    logger.info(
      { original: settings.url.href, sample: settings.sample, folder: folder?.dir },
      `shadowing ${settings.url.href}: ${settings.sample * 100}% of the answered requests are replayed to it`,
    );
  return shadow;
}

/**
 * The base64 cache (cache/base64-cache.ts). A folder the operator chose must be usable, as
 * SCOOP_VARIANT_CACHE_DIR must; the default one, when not writable, only turns the cache
 * off (with a warning): large attachments are then read from the store every time.
 */
async function openBase64Cache(
  settings: Base64CacheSettings,
  metrics: Metrics,
  logger: Logger,
): Promise<Base64Cache | undefined> {
  const options = {
    dir: settings.dir,
    maxBytes: settings.maxBytes,
    encode: base64Chunks,
    onError: (err: unknown) => logger.warn({ err }, 'base64 cache file failed; answered from the store'),
    onLookup: cacheLookupCounter(metrics, 'binaries'),
  };
  try {
    return await Base64Cache.open(options);
  } catch (error) {
    if (!(error instanceof CacheDirError)) throw error;
    if (!settings.chosen) {
      logger.warn(
        { dir: error.dir, reason: error.reason },
        'base64 cache folder not usable; serving without it',
      );
      return Base64Cache.none();
    }
    process.stderr.write(
      `scoop serve: SCOOP_BASE64_CACHE_DIR ${error.dir} cannot be used for the base64 cache (${error.reason}); ` +
        'make it writable for this user, or set SCOOP_BASE64_CACHE_BYTES=0 to serve without the cache\n',
    );
    return undefined;
  }
}
