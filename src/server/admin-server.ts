/**
 * The admin listener, apart from the public API (loopback by default): Prometheus
 * metrics, liveness and readiness. Nothing here is reachable on the public port.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gauge } from 'prom-client';
import type { Metrics } from '../observe/metrics.ts';
import type { ContentStore } from '../store/content-store.ts';

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
  const lastImport = new Gauge({
    name: 'scoop_last_import_timestamp_seconds',
    help: 'When the last committed import finished (Unix time; 0 when none).',
    registers: [metrics.registry],
    ...ONE_STORE,
  });
  new Gauge({
    name: 'scoop_imports_committed',
    help: 'Imports committed to the store so far (refused imports change nothing and are not counted).',
    registers: [metrics.registry],
    ...ONE_STORE,
    async collect() {
      const runs = await store.importRuns();
      this.set(runs.committed);
      lastImport.set(runs.last ? Date.parse(runs.last.finishedAt) / 1000 : 0);
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
): Promise<AdminServer> {
  return listenAdmin(storeProbes(metrics, store), host, port);
}

export async function listenAdmin(probes: AdminProbes, host: string, port: number): Promise<AdminServer> {
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    };
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
