/** A content bundle after validation (spec/bundle-format.md), ready to apply. */
import type { RecordKind } from '../content-store.ts';

export const BUNDLE_FORMAT = 'scoop-bundle/1';

export type BundleMode = 'upsert' | 'replace';

/** A binary named by `file`, checked to be a regular file inside the bundle. */
export interface BundleFile {
  /** As written in bundle.json, for messages. */
  readonly name: string;
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/** One record of a kind: its key, its stored document, where it was in bundle.json. */
export interface BundleRecord {
  readonly id: string;
  readonly doc: Readonly<Record<string, unknown>>;
  readonly file?: BundleFile;
  /** e.g. `anhaenge[2] (anhangID 502)`. */
  readonly where: string;
}

export interface Bundle {
  readonly mode: BundleMode;
  readonly records: ReadonlyMap<RecordKind, readonly BundleRecord[]>;
  /** Keys per kind that `loeschen` names (ids; e-mail keys for abonnements). */
  readonly deletions: ReadonlyMap<RecordKind, readonly string[]>;
}

/** E-mail addresses match case-insensitively (bundle-format.md), non-ASCII letters included. */
export function emailKey(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}
