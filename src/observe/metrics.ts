/**
 * Prometheus metrics, one registry per server so tests stay independent. The request
 * metrics are the cheap series of fast-metrics.ts; process and runtime metrics are
 * prom-client's defaults. Labels are bounded: operation and binding names come from the
 * contract, outcomes from the error catalogue, so no client input becomes a label value.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { FastCounter, FastHistogram } from './fast-metrics.ts';

export interface Metrics {
  readonly registry: Registry;
  readonly requests: FastCounter;
  readonly duration: FastHistogram;
  readonly requestBytes: FastHistogram;
  readonly responseBytes: FastHistogram;
  readonly cacheLookups: FastCounter;
  readonly rateLimited: FastCounter;
  readonly connectionsDropped: FastCounter;
  /** `serve --shadow`: requests replayed to the original, by how the answers compared. */
  readonly shadowRequests: FastCounter;
  /** Requests being handled right now; read when scraped. */
  inFlight: number;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'scoop_' });
  const bytes = [256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 268_435_456];
  const metrics: Metrics = {
    registry,
    requests: new FastCounter(
      'scoop_requests_total',
      'Requests answered, by operation ("-" when none was decoded), binding and outcome ("ok" or an error code).',
      ['operation', 'binding', 'outcome'],
      registry,
    ),
    duration: new FastHistogram(
      'scoop_request_duration_seconds',
      'Time from the request head to the last byte of the answer.',
      ['operation', 'binding'],
      registry,
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    ),
    requestBytes: new FastHistogram(
      'scoop_request_body_bytes',
      'Size of request bodies read.',
      ['binding'],
      registry,
      bytes,
    ),
    responseBytes: new FastHistogram(
      'scoop_response_body_bytes',
      'Size of response bodies sent.',
      ['binding'],
      registry,
      bytes,
    ),
    cacheLookups: new FastCounter(
      'scoop_cache_lookups_total',
      'Cache lookups by cache and result (hit or miss); hit rate = hits / all.',
      ['cache', 'result'],
      registry,
    ),
    rateLimited: new FastCounter(
      'scoop_rate_limited_total',
      'Requests refused by the rate limit, by the budget that was spent (address or token).',
      ['by'],
      registry,
    ),
    connectionsDropped: new FastCounter(
      'scoop_connections_dropped_total',
      'Connections closed unanswered because SCOOP_MAX_CONNECTIONS were open.',
      [],
      registry,
    ),
    shadowRequests: new FastCounter(
      'scoop_shadow_requests_total',
      'Answered requests sent to the original by serve --shadow, by operation, binding and outcome (same, different, failed, dropped).',
      ['operation', 'binding', 'outcome'],
      registry,
    ),
    inFlight: 0,
  };
  // Exported as 0 from the start, so a rate over them is 0 rather than no data.
  metrics.connectionsDropped.series();
  for (const by of ['address', 'token']) metrics.rateLimited.series(by);
  new Gauge({
    name: 'scoop_requests_in_flight',
    help: 'Requests being handled right now.',
    registers: [registry],
    collect() {
      this.set(metrics.inFlight);
    },
  });
  return metrics;
}

/**
 * Counts one cache's lookups by result, its two series found once: finding a series by its
 * labels joins them into a key on every call.
 */
export function cacheLookupCounter(metrics: Metrics, cache: string): (result: 'hit' | 'miss') => void {
  const hits = metrics.cacheLookups.series(cache, 'hit');
  const misses = metrics.cacheLookups.series(cache, 'miss');
  return (result) => (result === 'hit' ? hits : misses).inc();
}
