/**
 * Opening and hashing a bundle's files (bundle-file.ts's rules), and judging each one's
 * first bytes against the media types its records declare: the same steps whether the
 * import's thread does them (a few files) or a worker thread while the import's thread
 * checks the articles and subscriptions (file-digests.ts).
 */
import { createHash } from 'node:crypto';
import type { StoredDocument } from '../../contract/documents.ts';
import { SIGNATURE_BYTES } from '../../support/media-signature.ts';
import type { BundleFile } from './bundle.ts';
import { BundleFileSource, type OpenRules } from './bundle-file.ts';
import { BundleError, checkMediaType } from './validate.ts';

const HASH_CHUNK_BYTES = 256 * 1024;

export interface HashProgress {
  readonly files: number;
  readonly filesTotal: number;
  readonly bytes: number;
  readonly bytesTotal: number;
}

/** A `file` checked to name a path inside the bundle (by its text), not yet opened. */
export interface LocatedFile {
  readonly name: string;
  /** Normalised, relative to the bundle folder. */
  readonly relative: string;
  readonly where: string;
}

/** A distinct file opened and hashed. */
export type OpenedFile = Omit<BundleFile, 'name'>;

/** A record naming a file, as far as judging the file's first bytes needs it. */
export interface HeadUser {
  readonly kind: 'anhaenge' | 'bilder';
  readonly mimetype: StoredDocument<'anhaenge' | 'bilder'>['mimetype'];
  readonly where: string;
  readonly name: string;
}

export interface OpenOptions {
  readonly rules: OpenRules;
  /** How many descriptors stay open from hashing to storing; the rest are opened again. */
  readonly held: number;
}

export interface HashOptions {
  readonly onHashing?: (progress: HashProgress) => void;
}

/**
 * Judges each file's first bytes against its records' media types, in bundle order: a
 * contradicted image is refused (BundleError), an attachment imported with a warning.
 */
export function headJudge(
  users: ReadonlyMap<string, readonly HeadUser[]>,
  warnings: string[],
): (relative: string, head: Buffer) => void {
  return (relative, head) => {
    for (const { kind, mimetype, where, name } of users.get(relative) ?? []) {
      const warning = checkMediaType(kind, mimetype, head, where, name);
      if (warning) warnings.push(warning);
    }
  };
}

/** The distinct files (by normalised path), opened, in bundle order. */
export interface OpenedFiles {
  readonly files: readonly LocatedFile[];
  readonly sources: readonly BundleFileSource[];
}

/**
 * Opens every distinct file by bundle-file.ts's rules, holding the first `held`
 * descriptors open; on a refusal, what was opened is closed. The caller closes the rest
 * (a descriptor a worker thread opened would be closed when the worker ends, so only this
 * thread opens what it holds).
 */
export function openFiles(root: string, located: readonly LocatedFile[], options: OpenOptions): OpenedFiles {
  const distinct = new Map<string, LocatedFile>();
  for (const file of located) if (!distinct.has(file.relative)) distinct.set(file.relative, file);
  const sources: BundleFileSource[] = [];
  try {
    for (const file of distinct.values()) {
      const label = `${JSON.stringify(file.name)} `;
      const place = { root, relative: file.relative, where: file.where, label };
      const source = BundleFileSource.open(place, options.rules, sources.length < options.held);
      sources.push(source);
      if (source.size > 2_147_483_647)
        throw new BundleError(file.where, `${label}is larger than xs:int allows`);
    }
  } catch (error) {
    for (const source of sources) void source.close();
    throw error;
  }
  return { files: [...distinct.values()], sources };
}

/**
 * The SHA-256 of each opened file, in order, read from its handle and reporting as it
 * reads; each file's first bytes go to `judgeHead` as soon as they are read (a refusal
 * comes before the rest is hashed). Closes nothing: the opener does.
 */
export async function hashFiles(
  opened: OpenedFiles,
  options: HashOptions,
  judgeHead: (relative: string, head: Buffer) => void,
): Promise<string[]> {
  const { files, sources } = opened;
  const progress = {
    files: 0,
    filesTotal: sources.length,
    bytes: 0,
    bytesTotal: sources.reduce((n, source) => n + source.size, 0),
  };
  const sha256s: string[] = [];
  // Hashing keeps nothing of a chunk but the first bytes (copied): one buffer serves every read.
  const scratch = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
  for (const [i, file] of files.entries()) {
    const source = sources[i]!;
    const hash = createHash('sha256');
    let size = 0;
    // From the same descriptor as the hash, so the format judged is that of the bytes stored.
    const head: Buffer[] = [];
    for await (const chunk of source.chunks(HASH_CHUNK_BYTES, scratch)) {
      hash.update(chunk);
      if (size < SIGNATURE_BYTES) {
        head.push(Buffer.from(chunk.subarray(0, SIGNATURE_BYTES - size)));
        if (size + chunk.length >= SIGNATURE_BYTES) judgeHead(file.relative, Buffer.concat(head));
      }
      size += chunk.length;
      progress.bytes += chunk.length;
      options.onHashing?.({ ...progress });
    }
    if (size < SIGNATURE_BYTES) judgeHead(file.relative, Buffer.concat(head));
    if (size !== source.size) throw new BundleError(file.where, 'changed while it was being read');
    sha256s.push(hash.digest('hex'));
    progress.files++;
    options.onHashing?.({ ...progress });
  }
  return sha256s;
}

/** Each opened file by its normalised path, with its hash. */
export function openedByPath(opened: OpenedFiles, sha256s: readonly string[]): Map<string, OpenedFile> {
  return new Map(
    opened.files.map((file, i) => {
      const source = opened.sources[i]!;
      return [file.relative, { source, size: source.size, sha256: sha256s[i]! }];
    }),
  );
}

/** Closes what openFiles opened (a refusal, a mistake found meanwhile). */
export async function closeFiles(opened: OpenedFiles): Promise<void> {
  await Promise.all(opened.sources.map((source) => source.close()));
}
