/**
 * The realistic mix's requests (issue 17): 50,000 distinct requests over all eight
 * operations and four bindings, built from the contract by protocol/client-request.ts, and
 * the order wrk sends them in — drawn uniformly, or Zipf-distributed (a few requests very
 * often, most rarely). Seeded: the same list and order on every run.
 */
import { type Arguments, OPERATIONS, type OperationName } from '../../src/contract/operations.ts';
import type { BindingName } from '../../src/protocol/binding.ts';
import { encodeRequest } from '../../src/protocol/client-request.ts';
import { type BenchRequest, NS, SCENARIO_HEADER } from '../scenarios.ts';
import type { MixDataset } from './dataset.ts';
import { Random, zipfSampler } from './random.ts';

/** How often each operation is drawn: articles and their attachments dominate, as on a city site. */
export const OPERATION_WEIGHTS: Readonly<Record<OperationName, number>> = {
  getArtikelDetails: 0.3,
  getBereich: 0.15,
  getAbonnierteNewsletter: 0.15,
  getAnhang: 0.12,
  getBild: 0.12,
  getCityAppBereich: 0.08,
  checkAnhangVorhanden: 0.05,
  getNewsletter: 0.03,
};

const BINDINGS: readonly BindingName[] = ['soap11', 'soap12', 'httpget', 'httppost'];

/** A fifth of getBild requests ask for a resized variant, of a few sizes a site would use. */
const VARIANTS: readonly Arguments[] = [
  { width: 200, height: 0, resizeModes: ['standard'] },
  { width: 400, height: 300, resizeModes: ['crop'] },
  { width: 100, height: 100, resizeModes: ['fit'] },
];

export interface MixRequest extends BenchRequest {
  readonly operation: OperationName;
  readonly binding: BindingName;
}

function argumentsFor(operation: OperationName, data: MixDataset, random: Random): Arguments {
  const { counts } = data;
  switch (operation) {
    case 'getArtikelDetails':
      return { artikelID: random.int(1, counts.artikel) };
    case 'getBereich':
      return { bereichID: random.int(1, counts.bereiche) };
    case 'getCityAppBereich':
      return { cityAppBereichID: data.firstCityAppBereichID + random.int(0, counts.cityAppBereiche - 1) };
    case 'getAnhang':
    case 'checkAnhangVorhanden':
      return { anhangID: random.int(1, counts.anhaenge) };
    case 'getBild': {
      const bildID = random.int(1, counts.bilder);
      return random.next() < 0.8
        ? { bildID, width: 0, height: 0, resizeModes: ['standard'] }
        : { bildID, ...random.pick(VARIANTS) };
    }
    case 'getAbonnierteNewsletter':
      return { email: random.pick(data.emails) };
    case 'getNewsletter':
      return {};
  }
}

/** `count` distinct requests (fewer when the content cannot give as many), each named `mix-N` for the ceiling. */
export function mixRequests(data: MixDataset, token: string, count: number, seed = 42): MixRequest[] {
  const random = new Random(seed);
  const weighted = OPERATIONS.map((op) => ({ op, weight: OPERATION_WEIGHTS[op.name as OperationName] }));
  const total = weighted.reduce((sum, w) => sum + w.weight, 0);
  const seen = new Set<string>();
  const requests: MixRequest[] = [];
  for (let attempts = 0; requests.length < count && attempts < count * 20; attempts++) {
    const op = weightedPick(weighted, random.next() * total);
    const operation = op.name as OperationName;
    const binding = random.pick(BINDINGS);
    const args = argumentsFor(operation, data, random);
    const key = `${operation} ${binding} ${JSON.stringify(args)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const request = encodeRequest(binding, op, args, { namespace: NS, token });
    if (request.method === 'HEAD') continue;
    requests.push({
      operation,
      binding,
      method: request.method,
      path: request.path,
      headers: { ...request.headers, [SCENARIO_HEADER]: `mix-${requests.length}` },
      ...(request.method === 'POST' ? { body: request.body } : {}),
    });
  }
  return requests;
}

function weightedPick<T>(items: readonly { op: T; weight: number }[], roll: number): T {
  let left = roll;
  for (const item of items) {
    left -= item.weight;
    if (left < 0) return item.op;
  }
  return items[items.length - 1]!.op;
}

export type Distribution = 'uniform' | 'zipf';

/**
 * Draws in an order: twenty for each of the mix's 50,000 requests, so that a server's whole
 * measurement (warm-up and rounds, at up to 30,000 requests a second) goes through an order
 * once without coming round to its start again, which would send the same requests in the
 * same order a second time (four a request until 2026-11-29).
 */
export const ORDER_LENGTH = 1_000_000;

/**
 * The order of `length` requests drawn from `n`: uniformly, or Zipf with s = 1 over a seeded
 * ranking (so the popular requests are of every operation, not the first generated).
 */
export function drawOrder(n: number, length: number, distribution: Distribution, seed = 7): Int32Array {
  const random = new Random(seed);
  const order = new Int32Array(length);
  if (distribution === 'uniform') {
    for (let i = 0; i < length; i++) order[i] = random.int(0, n - 1);
    return order;
  }
  const ranking = random.sample(
    Array.from({ length: n }, (_, i) => i),
    n,
  );
  const draw = zipfSampler(n, 1, random);
  for (let i = 0; i < length; i++) order[i] = ranking[draw()]!;
  return order;
}
