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

/** Content version and imports, read from the store when Prometheus scrapes. */
export function registerStoreMetrics(metrics: Metrics, store: ContentStore): void {
  new Gauge({
    name: 'scoop_content_version',
    help: 'Content version of the store (increases with every committed import).',
    registers: [metrics.registry],
    async collect() {
      this.set(await store.contentVersion());
    },
  });
  const lastImport = new Gauge({
    name: 'scoop_last_import_timestamp_seconds',
    help: 'When the last committed import finished (Unix time; 0 when none).',
    registers: [metrics.registry],
  });
  new Gauge({
    name: 'scoop_imports_committed',
    help: 'Imports committed to the store so far (refused imports change nothing and are not counted).',
    registers: [metrics.registry],
    async collect() {
      const runs = await store.importRuns();
      this.set(runs.committed);
      lastImport.set(runs.last ? Date.parse(runs.last.finishedAt) / 1000 : 0);
    },
  });
}

async function ready(store: ContentStore): Promise<{ ok: boolean; contentVersion?: number }> {
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS),
  );
  try {
    const contentVersion = await Promise.race([store.contentVersion(), timeout]);
    return { ok: true, contentVersion };
  } catch {
    return { ok: false };
  }
}

export async function startAdminServer(
  metrics: Metrics,
  store: ContentStore,
  host: string,
  port: number,
): Promise<AdminServer> {
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'GET only\n');
    if (path === '/metrics') {
      try {
        return send(200, metrics.registry.contentType, await metrics.registry.metrics());
      } catch {
        return send(503, 'text/plain', 'metrics unavailable\n');
      }
    }
    if (path === '/healthz') return send(200, 'application/json', '{"status":"alive"}\n');
    if (path === '/readyz') {
      const state = await ready(store);
      return state.ok
        ? send(
            200,
            'application/json',
            `${JSON.stringify({ status: 'ready', contentVersion: state.contentVersion })}\n`,
          )
        : send(503, 'application/json', '{"status":"store unreachable"}\n');
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
