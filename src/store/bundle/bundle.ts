/** A content bundle after validation (spec/bundle-format.md), ready to apply. */
import type { RecordKind, StoredDocument } from '../../contract/documents.ts';
import type { BundleFileSource } from './bundle-file.ts';

export const BUNDLE_FORMAT = 'scoop-bundle/1';

export type BundleMode = 'upsert' | 'replace';

/** A binary named by `file`, opened and checked to be a regular file inside the bundle. */
export interface BundleFile {
  /** As written in bundle.json, for messages. */
  readonly name: string;
  /** Where its bytes are read from (bundle-file.ts): the handle it was hashed from. */
  readonly source: BundleFileSource;
  readonly size: number;
  readonly sha256: string;
}

/** One record of a kind: its key, its stored document, where it was in bundle.json. */
export interface BundleRecord<K extends RecordKind = RecordKind> {
  readonly id: string;
  readonly doc: StoredDocument<K>;
  readonly file?: BundleFile;
  /** e.g. `anhaenge[2] (anhangID 502)`. */
  readonly where: string;
}

/** Every kind's records (perhaps none), in bundle order; each list holds its kind's documents. */
export interface BundleRecords extends ReadonlyMap<RecordKind, readonly BundleRecord[]> {
  get<K extends RecordKind>(kind: K): readonly BundleRecord<K>[] | undefined;
}

export interface Bundle {
  readonly mode: BundleMode;
  readonly records: BundleRecords;
  /** Keys per kind that `loeschen` names (ids; e-mail keys for abonnements). */
  readonly deletions: ReadonlyMap<RecordKind, readonly string[]>;
  /** What was accepted but looks wrong (an attachment whose bytes contradict its mimetype), naming the record. */
  readonly warnings: readonly string[];
}
