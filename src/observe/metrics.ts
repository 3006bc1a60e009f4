/**
 * Prometheus metrics (prom-client), one registry per server so tests stay independent.
 * Labels are bounded: operation and binding names come from the contract, outcomes
 * from the error catalogue, so no client input becomes a label value.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  readonly requests: Counter<'operation' | 'binding' | 'outcome'>;
  readonly duration: Histogram<'operation' | 'binding'>;
  readonly inFlight: Gauge;
  readonly requestBytes: Histogram<'binding'>;
  readonly responseBytes: Histogram<'binding'>;
  readonly cacheLookups: Counter<'cache' | 'result'>;
  readonly rateLimited: Counter;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'scoop_' });
  const bytes = [256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216, 268_435_456];
  return {
    registry,
    requests: new Counter({
      name: 'scoop_requests_total',
      help: 'Requests answered, by operation ("-" when none was decoded), binding and outcome ("ok" or an error code).',
      labelNames: ['operation', 'binding', 'outcome'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'scoop_request_duration_seconds',
      help: 'Time from the request head to the last byte of the answer.',
      labelNames: ['operation', 'binding'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'scoop_requests_in_flight',
      help: 'Requests being handled right now.',
      registers: [registry],
    }),
    requestBytes: new Histogram({
      name: 'scoop_request_body_bytes',
      help: 'Size of request bodies read.',
      labelNames: ['binding'],
      buckets: bytes,
      registers: [registry],
    }),
    responseBytes: new Histogram({
      name: 'scoop_response_body_bytes',
      help: 'Size of response bodies sent.',
      labelNames: ['binding'],
      buckets: bytes,
      registers: [registry],
    }),
    cacheLookups: new Counter({
      name: 'scoop_cache_lookups_total',
      help: 'Cache lookups by cache and result (hit or miss); hit rate = hits / all.',
      labelNames: ['cache', 'result'],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'scoop_rate_limited_total',
      help: 'Requests refused by the per-client rate limit.',
      registers: [registry],
    }),
  };
}
