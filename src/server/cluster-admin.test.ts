/**
 * The cluster primary's probes against stand-in workers: readiness needs every listening
 * worker ready (and at least one), metrics are aggregated (counters summed, store gauges
 * their maximum), and a worker that does not answer fails the scrape.
 */
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { Counter, Gauge, Registry } from 'prom-client';
import type { Readiness } from './admin-server.ts';
import { clusterProbes } from './cluster-admin.ts';

interface Ask {
  readonly id: number;
  readonly question: 'metrics' | 'readiness';
}

/** A worker that answers the primary's questions with `answer` (silent when it returns undefined). */
function standIn(answer: (question: Ask['question']) => Promise<object> | undefined): Worker {
  const worker = new EventEmitter();
  Object.assign(worker, {
    isConnected: () => true,
    send(message: Ask) {
      void answer(message.question)?.then((reply) =>
        worker.emit('message', { type: 'scoop:answer', id: message.id, ...reply }),
      );
      return true;
    },
  });
  return worker as unknown as Worker;
}

function readyWorker(state: Readiness, requests = 0, contentVersion = 3): Worker {
  const registry = new Registry();
  new Counter({ name: 'scoop_requests_total', help: 'h', registers: [registry] }).inc(requests);
  new Gauge({ name: 'scoop_content_version', help: 'h', registers: [registry], aggregator: 'max' }).set(
    contentVersion,
  );
  return standIn(async (question) =>
    question === 'metrics' ? { metrics: await registry.getMetricsAsJSON() } : { readiness: state },
  );
}

const READY: Readiness = { ready: true, body: { status: 'ready', contentVersion: 3 } };
const UNREACHABLE: Readiness = { ready: false, body: { status: 'store unreachable' } };

test('ready when every listening worker is, and at least one listens', async () => {
  const two = [readyWorker(READY), readyWorker(READY)];
  assert.deepEqual(await clusterProbes(() => two, new Registry(), 2).readiness(), {
    ready: true,
    body: { status: 'ready', contentVersion: 3, workers: { ready: 2, listening: 2, expected: 2 } },
  });
  const one = [readyWorker(READY)];
  const restarting = await clusterProbes(() => one, new Registry(), 2).readiness();
  assert.equal(restarting.ready, true, 'a worker being replaced does not make the instance unready');
  const none = await clusterProbes(() => [], new Registry(), 2).readiness();
  assert.deepEqual(none, {
    ready: false,
    body: {
      status: 'not ready',
      workers: { ready: 0, listening: 0, expected: 2 },
      reasons: ['no worker is listening'],
    },
  });
});

test('not ready when a worker cannot reach the store', async () => {
  const workers = [readyWorker(READY), readyWorker(UNREACHABLE)];
  const state = await clusterProbes(() => workers, new Registry(), 2).readiness();
  assert.equal(state.ready, false);
  assert.deepEqual(state.body.reasons, ['store unreachable']);
  assert.deepEqual(state.body.workers, { ready: 1, listening: 2, expected: 2 });
});

test('metrics: counters summed, store gauges their maximum, the primary’s own added', async () => {
  const workers = [readyWorker(READY, 5, 3), readyWorker(READY, 7, 4)];
  const own = new Registry();
  new Gauge({ name: 'scoop_workers_listening', help: 'h', registers: [own] }).set(2);
  const text = await clusterProbes(() => workers, own, 2).metrics();
  assert.match(text, /^scoop_requests_total 12$/m);
  assert.match(text, /^scoop_content_version 4$/m);
  assert.match(text, /^scoop_workers_listening 2$/m);
});

test('a worker that does not answer fails the scrape and is not ready', async () => {
  const workers = [readyWorker(READY), standIn(() => undefined)];
  const probes = clusterProbes(() => workers, new Registry(), 2);
  await assert.rejects(probes.metrics(), /did not answer/);
  const state = await probes.readiness();
  assert.equal(state.ready, false);
  assert.deepEqual(state.body.reasons, ['worker did not answer']);
});
