/**
 * `compare --from-bundle DIR`: every operation on each chosen binding for every record
 * of the bundle, a few ids the bundle does not have, the e-mail address of each of its
 * subscriptions and one it does not have, and getNewsletter once. Images are asked for
 * as stored (width and height 0): a resize is made by each service's own image library,
 * so its bytes are not expected to match. getBild always names one mode (`standard`, the
 * default), because the original cannot read an empty list over HTTP GET/POST.
 */
import type { OperationName } from '../../contract/operations.ts';
import { OPERATIONS } from '../../contract/operations.ts';
import type { BindingName } from '../../protocol/binding.ts';
import type { ClientArguments } from '../../protocol/client-request.ts';
import { closeBundle, readBundle } from '../../store/bundle/read-bundle.ts';
import { generatedRequest, type ReplayRequest } from './replay-request.ts';

/** What the bundle holds, by what the operations are asked for. */
export interface BundleIds {
  readonly artikel: readonly number[];
  readonly bereiche: readonly number[];
  readonly cityAppBereiche: readonly number[];
  readonly anhaenge: readonly number[];
  readonly bilder: readonly number[];
  readonly emails: readonly string[];
}

const INT_MAX = 2147483647;
/** How many ids outside the bundle each operation is asked for. */
const UNKNOWN_IDS = 2;
/** An address under a reserved top-level domain (RFC 2606), which no subscription can have. */
export const UNKNOWN_EMAIL = 'nobody@unknown.invalid';

/** A few ids that are not in `ids`: the next after the largest, then 0, the largest int and -1. */
export function unknownIds(ids: readonly number[]): number[] {
  const known = new Set(ids);
  const largest = ids.reduce((max, id) => Math.max(max, id), 0);
  const candidates = [largest < INT_MAX ? largest + 1 : undefined, 0, INT_MAX, -1];
  const picked: number[] = [];
  for (const id of candidates) {
    if (id !== undefined && !known.has(id) && !picked.includes(id)) picked.push(id);
    if (picked.length === UNKNOWN_IDS) break;
  }
  return picked;
}

const withUnknown = (ids: readonly number[]) => [...ids, ...unknownIds(ids)];

/** The arguments each operation is called with. */
const CALLS = {
  checkAnhangVorhanden: (b) => withUnknown(b.anhaenge).map((anhangID) => ({ anhangID })),
  getArtikelDetails: (b) => withUnknown(b.artikel).map((artikelID) => ({ artikelID })),
  getAbonnierteNewsletter: (b) =>
    [...b.emails, ...(b.emails.includes(UNKNOWN_EMAIL) ? [] : [UNKNOWN_EMAIL])].map((email) => ({ email })),
  getNewsletter: () => [{}],
  getCityAppBereich: (b) => withUnknown(b.cityAppBereiche).map((cityAppBereichID) => ({ cityAppBereichID })),
  getBild: (b) =>
    withUnknown(b.bilder).map((bildID) => ({ bildID, width: 0, height: 0, resizeModes: ['standard'] })),
  getAnhang: (b) => withUnknown(b.anhaenge).map((anhangID) => ({ anhangID })),
  getBereich: (b) => withUnknown(b.bereiche).map((bereichID) => ({ bereichID })),
} satisfies Record<OperationName, (ids: BundleIds) => ClientArguments[]>;

const CALLS_BY_NAME: ReadonlyMap<string, (ids: BundleIds) => ClientArguments[]> = new Map(
  Object.entries(CALLS),
);

/** The ids and addresses of a bundle folder (validated as `import` does; its files are closed again). */
export async function bundleIds(folder: string): Promise<BundleIds> {
  const bundle = await readBundle(folder);
  await closeBundle(bundle);
  const ids = (kind: 'artikel' | 'bereiche' | 'cityAppBereiche' | 'anhaenge' | 'bilder') =>
    (bundle.records.get(kind) ?? []).map((r) => Number(r.id));
  return {
    artikel: ids('artikel'),
    bereiche: ids('bereiche'),
    cityAppBereiche: ids('cityAppBereiche'),
    anhaenge: ids('anhaenge'),
    bilder: ids('bilder'),
    emails: (bundle.records.get('abonnements') ?? []).map((r) => r.doc.email),
  };
}

/** How many requests `requestsFor` yields. */
export function countRequests(ids: BundleIds, bindings: readonly BindingName[]): number {
  let calls = 0;
  for (const call of CALLS_BY_NAME.values()) calls += call(ids).length;
  return calls * bindings.length;
}

/** Every call, operation by operation, each over every binding in turn. */
export function* requestsFor(
  ids: BundleIds,
  bindings: readonly BindingName[],
  namespace: string,
): Generator<ReplayRequest> {
  for (const operation of OPERATIONS) {
    for (const args of CALLS_BY_NAME.get(operation.name)!(ids)) {
      for (const binding of bindings) yield generatedRequest(binding, operation, args, namespace);
    }
  }
}
