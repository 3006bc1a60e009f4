/**
 * The admin listener, apart from the public API (loopback by default): Prometheus
 * metrics, liveness and readiness. Nothing here is reachable on the public port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge } from 'prom-client';
import type { ImageService } from '../images/image-service.ts';
import type { Metrics } from '../observe/metrics.ts';
import type { AnswerPack } from '../prepare/answer-pack.ts';
import type { PackFiller } from '../prepare/pack-filler.ts';
import type { ContentStore, ImportRun, ImportRuns } from '../store/content-store.ts';
import { adminHostCheck } from './admin-hosts.ts';

const READY_TIMEOUT_MS = 1000;

export interface AdminServer {
  readonly url: string;
  close(): Promise<void>;
}

/** The /readyz answer: 200 with `body` when ready, else 503. */
export interface Readiness {
  readonly ready: boolean;
  readonly body: Readonly<Record<string, unknown>>;
}

/**
 * What the admin listener reports: one process's registry and store (`storeProbes`), or
 * in a cluster primary the aggregate of its workers (cluster-admin.ts).
 */
export interface AdminProbes {
  readonly contentType: string;
  /** The Prometheus text exposition. */
  metrics(): Promise<string>;
  readiness(): Promise<Readiness>;
}

/** Every cluster worker reads the same store: aggregated, a store gauge is their maximum, not a sum. */
const ONE_STORE = { aggregator: 'max' } as const;

/** Content version and imports, read from the store when Prometheus scrapes. */
export function registerStoreMetrics(metrics: Metrics, store: ContentStore): void {
  new Gauge({
    name: 'scoop_content_version',
    help: 'Content version of the store (increases with every committed import).',
    registers: [metrics.registry],
    ...ONE_STORE,
    async collect() {
      this.set(await store.contentVersion());
    },
  });
  // One read of the import record serves every gauge below in a scrape: prom-client
  // collects them all at once, so they share the read in flight, and the next scrape reads
  // afresh. The store's own record, so imports run by `scoop import` in another process (or
  // on another machine, with PostgreSQL) are counted here, where Prometheus scrapes.
  let inFlight: Promise<ImportRuns> | undefined;
  const recorded = (): Promise<ImportRuns> => {
    inFlight ??= store.importRuns().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  const seconds = (run: ImportRun | undefined) => (run ? Date.parse(run.finishedAt) / 1000 : 0);
  new Gauge({
    name: 'scoop_last_import_timestamp_seconds',
    help: 'When the last committed import finished (Unix time; 0 when none).',
    registers: [metrics.registry],
    ...ONE_STORE,
    async collect() {
      this.set(seconds((await recorded()).last));
    },
  });
  new Gauge({
    name: 'scoop_last_refused_import_timestamp_seconds',
    help: 'When the last refused import was refused (Unix time; 0 when none).',
    registers: [metrics.registry],
    ...ONE_STORE,
    async collect() {
      this.set(seconds((await recorded()).lastRefused));
    },
  });
  new Gauge({
    name: 'scoop_import_runs',
    help: 'Imports run against the store so far, by outcome (committed or refused), by any process.',
    labelNames: ['outcome'],
    registers: [metrics.registry],
    ...ONE_STORE,
    async collect() {
      const runs = await recorded();
      this.set({ outcome: 'committed' }, runs.committed);
      this.set({ outcome: 'refused' }, runs.refused);
    },
  });
  new Gauge({
    name: 'scoop_imports_committed',
    help: 'Imports committed to the store so far (as scoop_import_runs{outcome="committed"}).',
    registers: [metrics.registry],
    ...ONE_STORE,
    async collect() {
      this.set((await recorded()).committed);
    },
  });
}

/** Log lines the output did not take in time (observe/log-destination.ts), read when Prometheus scrapes. */
export function registerLogMetrics(metrics: Metrics, log: { readonly dropped: number }): void {
  new Gauge({
    name: 'scoop_log_lines_dropped',
    help: 'Log lines dropped since the start because stdout did not take them (a stalled or broken reader).',
    registers: [metrics.registry],
    collect() {
      this.set(log.dropped);
    },
  });
}

/** getBild's resize queue, read when Prometheus scrapes (summed over the workers of a cluster). */
export function registerImageMetrics(metrics: Metrics, images: ImageService): void {
  new Gauge({
    name: 'scoop_resize_queue_length',
    help: 'Resizes waiting for a slot (at most SCOOP_RESIZE_QUEUE; one more is refused as BUSY).',
    registers: [metrics.registry],
    collect() {
      this.set(images.queue.stats.waiting);
    },
  });
  new Gauge({
    name: 'scoop_resizes_running',
    help: 'Resizes running now (at most SCOOP_RESIZE_CONCURRENCY).',
    registers: [metrics.registry],
    collect() {
      this.set(images.queue.stats.running);
    },
  });
}

/** The answer pack's size, and how far it is filled (prepare/answer-pack.ts, pack-filler.ts). */
export function registerAnswerPackMetrics(metrics: Metrics, pack: AnswerPack, filler: PackFiller): void {
  // A cluster sums each worker's pack; its filled version is the least any worker filled.
  const gauges: Array<[string, string, () => number, 'sum' | 'min']> = [
    [
      'scoop_answer_pack_answers',
      'Prepared answers (each layout counted) in the answer pack.',
      () => pack.size,
      'sum',
    ],
    ['scoop_answer_pack_bytes', "Bytes of the answer pack's file.", () => pack.bytes, 'sum'],
    [
      'scoop_answer_pack_filled_version',
      'The last content version whose prepared answers were all read into the answer pack (0: none yet).',
      () => filler.filledVersion,
      'min',
    ],
  ];
  for (const [name, help, value, aggregator] of gauges)
    new Gauge({
      name,
      help,
      aggregator,
      registers: [metrics.registry],
      collect() {
        this.set(value());
      },
    });
  new Counter({
    name: 'scoop_answer_pack_moves_total',
    help: 'Content versions the answer pack, holding answers, was moved to: advanced (only the answers the imports changed were dropped) or emptied.',
    labelNames: ['move'],
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const move of ['advanced', 'emptied'] as const) this.inc({ move }, filler.moves[move]);
    },
  });
}

/**
 * Ready: the store answers within READY_TIMEOUT_MS and its schema has every migration this
 * build knows (an instance must not take traffic against tables it does not understand).
 */
async function ready(store: ContentStore): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS);
  });
  try {
    const { schemaVersion, latestSchemaVersion, contentVersion } = await Promise.race([
      store.health(),
      timeout,
    ]);
    if (contentVersion === undefined || schemaVersion < latestSchemaVersion) {
      return { ready: false, body: { status: 'store not migrated', schemaVersion, latestSchemaVersion } };
    }
    return { ready: true, body: { status: 'ready', contentVersion } };
  } catch {
    return { ready: false, body: { status: 'store unreachable' } };
  } finally {
    clearTimeout(timer);
  }
}

export function storeProbes(metrics: Metrics, store: ContentStore): AdminProbes {
  return {
    contentType: metrics.registry.contentType,
    metrics: () => metrics.registry.metrics(),
    readiness: () => ready(store),
  };
}

export function startAdminServer(
  metrics: Metrics,
  store: ContentStore,
  host: string,
  port: number,
  names: readonly string[] = [],
): Promise<AdminServer> {
  return listenAdmin(storeProbes(metrics, store), host, port, names);
}

/** `names`: the host names it answers to besides IP literals, localhost and a named `host` (admin-hosts.ts). */
export async function listenAdmin(
  probes: AdminProbes,
  host: string,
  port: number,
  names: readonly string[] = [],
): Promise<AdminServer> {
  const knownHost = adminHostCheck(host, names);
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    };
    // RFC 9110 §15.5.20: 421, this server will not answer for the name the request was sent to.
    if (!knownHost(req.headers.host)) return send(421, 'text/plain', 'unknown host\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'GET only\n');
    if (path === '/metrics') {
      try {
        return send(200, probes.contentType, await probes.metrics());
      } catch {
        return send(503, 'text/plain', 'metrics unavailable\n');
      }
    }
    if (path === '/healthz') return send(200, 'application/json', '{"status":"alive"}\n');
    if (path === '/readyz') {
      const state = await probes.readiness();
      return send(state.ready ? 200 : 503, 'application/json', `${JSON.stringify(state.body)}\n`);
    }
    send(404, 'text/plain', 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
