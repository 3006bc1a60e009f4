/**
 * `scoop serve --workers N` (N > 1): the serve process becomes a node:cluster primary
 * that does no request work. It forks N workers, each running the ordinary serve path
 * (cluster.fork runs the same command line again; a worker skips the seed and the admin
 * listener), replaces a worker that exits, with a back-off so a crash loop does not spin,
 * answers the admin listener for all of them (cluster-admin.ts), and on SIGTERM/SIGINT
 * tells every worker to drain and exits once all have exited.
 *
 * The `--seed` import, and the migrations done when a store is opened, run once: in the
 * primary, before it forks, so no two workers race to seed a new store.
 */
import cluster, { type Address, type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { Counter, Gauge, Registry } from 'prom-client';
import { listenAdmin, type Readiness } from './admin-server.ts';
import { answerPrimary, clusterProbes } from './cluster-admin.ts';
import type { ServeSettings } from './settings.ts';

/** A worker that ran this long was stable: when it exits, the back-off starts afresh. */
const STABLE_MS = 10_000;
const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 30_000;
/** Beyond SCOOP_SHUTDOWN_TIMEOUT_MS (after which workers cut what is open): time to exit. */
const EXIT_GRACE_MS = 3_000;

/** The primary's own metrics, beside its workers' aggregated ones. */
const WORKERS_LISTENING = 'scoop_workers_listening';
const WORKER_RESTARTS = 'scoop_worker_restarts_total';
export const PRIMARY_METRICS: readonly string[] = [WORKERS_LISTENING, WORKER_RESTARTS];

/** How long to wait before replacing a worker after `quickExits` exits in a row that came before it was stable. */
export function restartDelay(quickExits: number): number {
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** quickExits);
}

/** Whether this serve process is to be the primary of a cluster. */
export function becomesPrimary(settings: Pick<ServeSettings, 'workers'>): boolean {
  return settings.workers > 1 && cluster.isPrimary;
}

export const isWorker = cluster.isWorker;

/** Workers' log lines (the per-request ones too) carry their pid, so they can be told apart. */
export function logBase(): { pid: number } | undefined {
  return cluster.isWorker ? { pid: process.pid } : undefined;
}

/** In a worker: answers the primary's admin questions, and outlasts repeated signals. */
export function joinCluster(registry: Registry, readiness: () => Promise<Readiness>): void {
  if (!cluster.isWorker) return;
  answerPrimary(registry, readiness);
  // The primary sends SIGTERM, and a terminal or a service manager may signal the worker as
  // well: the serve path reacts to the first; a second must not kill a draining worker.
  process.on('SIGTERM', () => undefined);
  process.on('SIGINT', () => undefined);
}

/** In a worker that has drained: closes the IPC channel, so that the process can end. */
export function leaveCluster(): void {
  if (cluster.isWorker && process.connected) process.disconnect();
}

interface Slot {
  worker?: Worker;
  started: number;
  quickExits: number;
  timer?: NodeJS.Timeout;
}

function formatUrl(address: Address): string {
  const host = address.address?.includes(':') ? `[${address.address}]` : (address.address ?? '127.0.0.1');
  return `http://${host}:${address.port}`;
}

/** Resolves true when `promise` settles within `ms`, else false. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const inTime = await Promise.race([promise.then(() => true as const), late]);
  clearTimeout(timer);
  return inTime;
}

function waitForSignal(): { signal: Promise<string>; release(): void } {
  let resolve: (name: string) => void = () => undefined;
  const signal = new Promise<string>((r) => {
    resolve = r;
  });
  const onTerm = () => resolve('SIGTERM');
  const onInt = () => resolve('SIGINT');
  // Kept until the end: a second signal while the workers drain changes nothing.
  process.on('SIGTERM', onTerm).on('SIGINT', onInt);
  return { signal, release: () => process.off('SIGTERM', onTerm).off('SIGINT', onInt) };
}

/** SIGTERM to each worker (they drain); true when all exit within `ms`, else they are killed. */
async function stopWorkers(workers: readonly Worker[], ms: number, logger: Logger): Promise<boolean> {
  const exited = Promise.all(workers.map((w) => new Promise((resolve) => w.once('exit', resolve))));
  for (const worker of workers) worker.process.kill('SIGTERM');
  const inTime = await within(exited, ms);
  if (!inTime) {
    logger.error('workers did not exit in time; killing them');
    for (const worker of workers) if (!worker.isDead()) worker.process.kill('SIGKILL');
    await exited;
  }
  return inTime;
}

export async function runPrimary(settings: ServeSettings, logger: Logger): Promise<number> {
  const { signal, release } = waitForSignal();
  const own = new Registry();
  const listening = new Set<Worker>();
  const restarts = new Counter({
    name: WORKER_RESTARTS,
    help: 'Workers started again after one exited (--workers).',
    registers: [own],
  });
  new Gauge({
    name: WORKERS_LISTENING,
    help: 'Workers serving now (--workers).',
    registers: [own],
    collect() {
      this.set(listening.size);
    },
  });
  const slots: Slot[] = Array.from({ length: settings.workers }, () => ({ started: 0, quickExits: 0 }));
  let state: 'starting' | 'running' | 'stopping' = 'starting';
  let url = '';
  let startedAll: (ok: boolean) => void = () => undefined;
  const startup = new Promise<boolean>((resolve) => {
    startedAll = resolve;
  });

  const fork = (slot: Slot) => {
    slot.timer = undefined;
    slot.started = Date.now();
    slot.worker = cluster.fork();
    logger.info({ worker: slot.worker.process.pid, slot: slots.indexOf(slot) }, 'worker started');
  };
  const onListening = (worker: Worker, address: Address) => {
    url ||= formatUrl(address);
    listening.add(worker);
    if (state === 'starting' && listening.size === slots.length) startedAll(true);
  };
  const onExit = (worker: Worker, code: number | null, signalName: string | null) => {
    listening.delete(worker);
    const slot = slots.find((s) => s.worker === worker);
    if (!slot) return;
    slot.worker = undefined;
    const facts = { worker: worker.process.pid, slot: slots.indexOf(slot), code, signal: signalName };
    if (state === 'stopping') {
      if (code !== 0) logger.warn(facts, 'worker exited while stopping');
      return;
    }
    if (state === 'starting') {
      logger.error(facts, 'a worker exited before the cluster was serving; stopping');
      startedAll(false);
      return;
    }
    slot.quickExits = Date.now() - slot.started < STABLE_MS ? slot.quickExits + 1 : 0;
    const delay = restartDelay(slot.quickExits);
    logger.error({ ...facts, restartInMs: delay }, 'worker exited; starting another');
    restarts.inc();
    slot.timer = setTimeout(() => fork(slot), delay);
  };
  cluster.on('listening', onListening).on('exit', onExit);

  let admin: Awaited<ReturnType<typeof listenAdmin>> | undefined;
  try {
    if (settings.adminPort !== undefined) {
      const probes = clusterProbes(() => [...listening], own, settings.workers);
      admin = await listenAdmin(probes, settings.adminHost, settings.adminPort, settings.adminHostnames);
    }
    for (const slot of slots) fork(slot);
    const started = await Promise.race([startup, signal.then(() => undefined)]);
    if (started) {
      state = 'running';
      const shown = admin ? `, admin on ${admin.url}` : '';
      logger.info(
        { url, admin: admin?.url, workers: settings.workers },
        `scoop listening on ${url} with ${settings.workers} workers${shown}`,
      );
    }
    const reason = started === false ? 'start-up failed' : await signal;
    state = 'stopping';
    const live = slots.flatMap((slot) => {
      clearTimeout(slot.timer);
      return slot.worker && !slot.worker.isDead() ? [slot.worker] : [];
    });
    logger.info({ signal: reason, workers: live.length }, 'shutting down: workers drain requests in flight');
    const inTime = await stopWorkers(live, settings.server.shutdownTimeoutMs + EXIT_GRACE_MS, logger);
    logger.info('stopped');
    return started === false || !inTime ? 1 : 0;
  } finally {
    await admin?.close();
    cluster.off('listening', onListening).off('exit', onExit);
    release();
  }
}
