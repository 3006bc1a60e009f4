/**
 * An answer's records into the bundle: each record of the answer checked first (records.ts),
 * then its binaries renamed into place and its lines appended, so an answer is taken whole
 * or not at all. A record already in the bundle is kept as it is: the first answer to
 * bring it wins (an attachment listed by many articles is written once).
 */
import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RecordKind } from '../../contract/documents.ts';
import type { OperationName, ResultOf } from '../../contract/operations.ts';
import type {
  Anhang,
  ArtikelDetails,
  Bereich,
  Bild,
  CityAppBereich,
  Newsletter,
} from '../../contract/types.ts';
import { BinaryFile } from './binary-file.ts';
import { type Journal, keyOf } from './journal.ts';
import type { Job } from './plan.ts';
import {
  abonnementRecord,
  anhangRecord,
  artikelRecord,
  bereichRecord,
  bildRecord,
  binaryPath,
  type Carried,
  cityAppBereichRecord,
  NotCarried,
  newsletterRecord,
} from './records.ts';

export interface ApplyContext {
  readonly journal: Journal;
  /** A warning about a record, named by the request that brought it. */
  warn(message: string): void;
}

interface Entry {
  readonly kind: RecordKind;
  readonly carried: Carried;
  /** Its binary, when it has one: kept in the bundle folder, or undefined for an empty file. */
  readonly binary?: {
    readonly kind: 'anhaenge' | 'bilder';
    readonly id: number;
    readonly file: BinaryFile | undefined;
  };
  /** Counted as having come with another answer. */
  readonly yielded: boolean;
}

/** Discards the temporary files of binaries that are not taken. */
export async function discardAll(files: readonly BinaryFile[]): Promise<void> {
  await Promise.all(files.map((f) => f.discard()));
}

/**
 * Checks every entry, then writes them in order; the answer's binaries that are not
 * taken are discarded. When one entry cannot be carried, none is written and the answer
 * is left out (the caller counts it).
 */
async function commit(
  context: ApplyContext,
  label: string,
  entries: Entry[],
  files: readonly BinaryFile[],
): Promise<void> {
  const { journal } = context;
  const taken = new Set<BinaryFile>();
  // Claimed before the first await: another answer's commit may run while this one renames.
  const mine = entries.filter((entry) =>
    journal.reserve(entry.kind, keyOf(entry.kind, entry.carried.record)),
  );
  for (const entry of mine) {
    if (entry.binary) {
      const target = path.join(journal.folder, binaryPath(entry.binary.kind, entry.binary.id));
      const file = entry.binary.file;
      if (file?.temporary) {
        await rename(file.temporary, target);
        taken.add(file);
      } else await writeFile(target, new Uint8Array(0));
      journal.counts[entry.kind].bytes += file?.size ?? 0;
    }
    journal.append(entry.kind, entry.carried.record);
    journal.counts[entry.kind].records++;
    if (entry.yielded) journal.counts[entry.kind].yielded++;
    for (const warning of entry.carried.warnings)
      context.warn(`${label}: ${describeEntry(entry)}: ${warning}`);
  }
  await discardAll(files.filter((f) => !taken.has(f)));
}

function describeEntry(entry: Entry): string {
  return entry.kind === 'abonnements'
    ? 'the subscription'
    : `${entry.kind} ${keyOf(entry.kind, entry.carried.record)}`;
}

/** Builds the entries (checking each), then commits; a record the bundle cannot hold leaves the answer out. */
async function take(
  context: ApplyContext,
  kind: RecordKind,
  label: string,
  files: readonly BinaryFile[],
  build: () => Entry[],
): Promise<boolean> {
  let entries: Entry[];
  try {
    entries = build();
  } catch (error) {
    if (!(error instanceof NotCarried)) throw error;
    await discardAll(files);
    context.journal.counts[kind].leftOut++;
    context.warn(`${label}: left out: ${error.message}`);
    return false;
  }
  await commit(context, label, entries, files);
  return true;
}

function fileOf(data: unknown): BinaryFile | undefined {
  return data instanceof BinaryFile ? data : undefined;
}

export function applyArtikel(
  context: ApplyContext,
  label: string,
  artikelID: number,
  details: ArtikelDetails,
  files: readonly BinaryFile[],
): Promise<boolean> {
  // What the bundle has already (most articles share their areas and attachments) is not made again.
  const { journal } = context;
  return take(context, 'artikel', label, files, () => [
    ...details.bereiche
      .filter((b) => !journal.has('bereiche', b.bereichID))
      .map((b) => ({ kind: 'bereiche' as const, carried: bereichRecord(b), yielded: true })),
    ...details.cityAppBereiche
      .filter((b) => !journal.has('cityAppBereiche', b.cityAppBereichID))
      .map((b) => ({ kind: 'cityAppBereiche' as const, carried: cityAppBereichRecord(b), yielded: true })),
    ...details.anhaenge
      .filter((a) => !journal.has('anhaenge', a.anhangID))
      .map((a) => ({
        kind: 'anhaenge' as const,
        carried: anhangRecord(a),
        binary: { kind: 'anhaenge' as const, id: a.anhangID, file: fileOf(a.data) },
        yielded: true,
      })),
    { kind: 'artikel', carried: artikelRecord(artikelID, details), yielded: false },
  ]);
}

export function applyBereich(context: ApplyContext, label: string, value: Bereich): Promise<boolean> {
  return take(context, 'bereiche', label, [], () => [
    { kind: 'bereiche', carried: bereichRecord(value), yielded: false },
  ]);
}

export function applyCityAppBereich(
  context: ApplyContext,
  label: string,
  value: CityAppBereich,
): Promise<boolean> {
  return take(context, 'cityAppBereiche', label, [], () => [
    { kind: 'cityAppBereiche', carried: cityAppBereichRecord(value), yielded: false },
  ]);
}

export function applyAnhang(
  context: ApplyContext,
  label: string,
  value: Anhang,
  files: readonly BinaryFile[],
): Promise<boolean> {
  return take(context, 'anhaenge', label, files, () => [
    {
      kind: 'anhaenge',
      carried: anhangRecord(value),
      binary: { kind: 'anhaenge', id: value.anhangID, file: fileOf(value.data) },
      yielded: false,
    },
  ]);
}

export function applyBild(
  context: ApplyContext,
  label: string,
  value: Bild,
  files: readonly BinaryFile[],
): Promise<boolean> {
  return take(context, 'bilder', label, files, () => [
    {
      kind: 'bilder',
      carried: bildRecord(value),
      binary: { kind: 'bilder', id: value.bildID, file: fileOf(value.data) },
      yielded: false,
    },
  ]);
}

/** The public newsletters; scoop answers getNewsletter in the order of their ids. */
export function applyNewsletters(
  context: ApplyContext,
  label: string,
  list: readonly Newsletter[],
): Promise<boolean> {
  if (list.some((n, i) => i > 0 && list[i - 1]!.newsletterID >= n.newsletterID))
    context.warn(
      `${label}: the newsletters are not in the order of their ids; scoop answers them ordered by id`,
    );
  return take(context, 'newsletter', label, [], () =>
    list.map((n) => ({
      kind: 'newsletter',
      carried: newsletterRecord(n.newsletterID, n.name, true),
      yielded: false,
    })),
  );
}

/**
 * A subscription; a newsletter it names that getNewsletter did not list becomes a
 * non-public record with no name (its name is never answered: docs/migration.md).
 */
export function applyAbonnement(
  context: ApplyContext,
  label: string,
  email: string,
  newsletterIDs: readonly number[],
): Promise<boolean> {
  return take(context, 'abonnements', label, [], () => [
    ...newsletterIDs.map((id) => ({
      kind: 'newsletter' as const,
      carried: newsletterRecord(id, null, false),
      yielded: true,
    })),
    { kind: 'abonnements', carried: abonnementRecord(email, newsletterIDs), yielded: false },
  ]);
}

/** The records of an answer to `job`, whatever its operation. */
export function applyAnswer(
  context: ApplyContext,
  job: Job,
  result: ResultOf<OperationName>,
  files: readonly BinaryFile[],
): Promise<boolean> {
  const label = job.label;
  if ('artikelDetails' in result && job.id !== undefined)
    return applyArtikel(context, label, job.id, result.artikelDetails, files);
  if ('bereich' in result) return applyBereich(context, label, result.bereich);
  if ('cityAppBereich' in result) return applyCityAppBereich(context, label, result.cityAppBereich);
  if ('anhang' in result) return applyAnhang(context, label, result.anhang, files);
  if ('bild' in result) return applyBild(context, label, result.bild, files);
  if ('newsletter' in result) {
    const list = result.newsletter;
    if (job.operation === 'getNewsletter') return applyNewsletters(context, label, list.filter(isNewsletter));
    const email = job.args.email;
    const ids = list.filter((n): n is number => typeof n === 'number');
    if (typeof email === 'string' && ids.length === 0) {
      // The wire cannot tell an address with no subscription from an unknown one.
      context.journal.counts.abonnements.unknown++;
      return Promise.resolve(false);
    }
    if (typeof email === 'string') return applyAbonnement(context, label, email, ids);
  }
  throw new Error(`no records taken from the answer to ${job.operation}`);
}

function isNewsletter(value: unknown): value is Newsletter {
  return typeof value === 'object' && value !== null && 'newsletterID' in value;
}
