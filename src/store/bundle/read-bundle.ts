/**
 * Reads and validates a bundle folder completely before anything is written: JSON,
 * fields, duplicate ids, and every `file` (inside the folder, a regular file, hashed).
 * Files are hashed last, once everything cheaper has been checked, so a mistake in
 * bundle.json is reported before gigabytes are read. References between records are
 * checked later, against the store's final state.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { emailKey, RECORD_KINDS, type RecordKind, type StoredDocument } from '../../contract/documents.ts';
import {
  BUNDLE_FORMAT,
  type Bundle,
  type BundleFile,
  type BundleMode,
  type BundleRecord,
  type BundleRecords,
} from './bundle.ts';
import {
  BundleError,
  checkArray,
  checkArtikel,
  checkInt,
  checkObject,
  checkRecord,
  checkString,
  refuseUnknownKeys,
  SIMPLE_KINDS,
  type SimpleKind,
} from './validate.ts';

/** bundle.json itself is read whole; binaries are not, so this bounds only the JSON. */
const MAX_BUNDLE_JSON_BYTES = 256 * 1024 * 1024;

/** RFC 8259 §8.1: JSON text is UTF-8; invalid bytes are refused, not replaced. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

const TOP_LEVEL = ['format', 'mode', ...RECORD_KINDS, 'loeschen'];

export interface HashProgress {
  readonly files: number;
  readonly filesTotal: number;
  readonly bytes: number;
  readonly bytesTotal: number;
}

export interface ReadOptions {
  /** Called as the bundle's files are hashed, after each chunk read. */
  onHashing?: (progress: HashProgress) => void;
}

/** A `file` checked to be a regular file inside the bundle, not yet hashed. */
type LocatedFile = Omit<BundleFile, 'sha256'>;

type PendingRecord = Omit<BundleRecord, 'file'> & { readonly file?: LocatedFile };

/** SHA-256 of each distinct file (by real path), read in chunks. */
async function hashFiles(
  files: readonly LocatedFile[],
  onHashing: ReadOptions['onHashing'],
): Promise<Map<string, string>> {
  const distinct = new Map(files.map((f) => [f.path, f.size]));
  const progress = {
    files: 0,
    filesTotal: distinct.size,
    bytes: 0,
    bytesTotal: [...distinct.values()].reduce((n, size) => n + size, 0),
  };
  const hashes = new Map<string, string>();
  for (const file of distinct.keys()) {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(file)) {
      hash.update(chunk as Buffer);
      progress.bytes += (chunk as Buffer).length;
      onHashing?.({ ...progress });
    }
    hashes.set(file, hash.digest('hex'));
    progress.files++;
    onHashing?.({ ...progress });
  }
  return hashes;
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  // `..` as a whole path segment escapes; a name like `..version.txt` does not.
  const escapes = relative === '..' || relative.startsWith(`..${path.sep}`);
  return relative !== '' && !escapes && !path.isAbsolute(relative);
}

async function locateFile(root: string, value: unknown, where: string): Promise<LocatedFile> {
  const name = checkString(value, where);
  if (name === '' || path.isAbsolute(name) || name.includes('\0')) {
    throw new BundleError(where, 'must be a relative path inside the bundle folder');
  }
  const resolved = path.resolve(root, name);
  if (!isInside(root, resolved))
    throw new BundleError(where, `${JSON.stringify(name)} escapes the bundle folder`);
  let real: string;
  try {
    await lstat(resolved);
    real = await realpath(resolved);
  } catch {
    throw new BundleError(where, `${JSON.stringify(name)} does not exist`);
  }
  // A symbolic link may point outside; what counts is where the bytes really are.
  if (!isInside(root, real))
    throw new BundleError(where, `${JSON.stringify(name)} escapes the bundle folder`);
  const info = await stat(real);
  if (!info.isFile()) throw new BundleError(where, `${JSON.stringify(name)} is not a regular file`);
  if (info.size > 2_147_483_647)
    throw new BundleError(where, `${JSON.stringify(name)} is larger than xs:int allows`);
  return { name, path: real, size: info.size };
}

function refuseDuplicates(records: readonly { id: string; where: string }[], kind: RecordKind): void {
  const seen = new Map<string, string>();
  for (const r of records) {
    const first = seen.get(r.id);
    if (first) throw new BundleError(r.where, `has the same id as ${first} (duplicate id in ${kind})`);
    seen.set(r.id, r.where);
  }
}

export async function readBundle(folder: string, options: ReadOptions = {}): Promise<Bundle> {
  const root = await realpath(folder).catch(() => {
    throw new BundleError(folder, 'the bundle folder does not exist');
  });
  const jsonPath = path.join(root, 'bundle.json');
  const info = await stat(jsonPath).catch(() => {
    throw new BundleError('bundle.json', 'is missing');
  });
  if (info.size > MAX_BUNDLE_JSON_BYTES) throw new BundleError('bundle.json', 'is larger than 256 MB');
  let json: unknown;
  try {
    json = JSON.parse(STRICT_UTF8.decode(await readFile(jsonPath)));
  } catch (error) {
    throw new BundleError('bundle.json', `is not valid JSON (${(error as Error).message})`);
  }
  const top = checkObject(json, 'bundle.json');
  refuseUnknownKeys(top, TOP_LEVEL, 'bundle.json');
  if (top.format !== BUNDLE_FORMAT) {
    throw new BundleError('bundle.json.format', `must be ${JSON.stringify(BUNDLE_FORMAT)}`);
  }
  const mode = (top.mode ?? 'upsert') as BundleMode;
  if (mode !== 'upsert' && mode !== 'replace') {
    throw new BundleError('bundle.json.mode', 'must be "upsert" or "replace"');
  }

  const pending = new Map<RecordKind, PendingRecord[]>();
  for (const rules of SIMPLE_KINDS) {
    const list: PendingRecord[] = [];
    const items = checkArray(top[rules.kind] ?? [], rules.kind);
    for (let i = 0; i < items.length; i++) {
      const at = `${rules.kind}[${i}]`;
      const object = checkObject(items[i], at);
      const id = checkInt(object[rules.idField], `${at}.${rules.idField}`);
      const where = `${at} (${rules.idField} ${id})`;
      const allowed = [
        ...rules.type.fields.map((f) => f.name).filter((n) => !rules.derived.includes(n)),
        ...rules.extra,
      ];
      refuseUnknownKeys(object, allowed, where);
      const doc: Record<string, unknown> = checkRecord(rules.type, object, where, {
        idField: rules.idField,
        derived: rules.derived,
      });
      let file: LocatedFile | undefined;
      if (rules.extra.includes('file')) file = await locateFile(root, object.file, `${where}.file`);
      if (rules.extra.includes('oeffentlich')) {
        const value = object.oeffentlich ?? false;
        if (typeof value !== 'boolean')
          throw new BundleError(`${where}.oeffentlich`, 'must be true or false');
        doc.oeffentlich = value;
      }
      // The kind's contract fields less the blob's, checked, and a newsletter's oeffentlich.
      const stored = doc as StoredDocument<SimpleKind>;
      list.push(file ? { id: String(id), doc: stored, file, where } : { id: String(id), doc: stored, where });
    }
    pending.set(rules.kind, list);
  }

  const records = new Map<RecordKind, BundleRecord[]>();
  records.set(
    'artikel',
    checkArray(top.artikel ?? [], 'artikel').map((item, i) => {
      const { id, doc } = checkArtikel(item, `artikel[${i}]`);
      return { id: String(id), doc, where: `artikel[${i}] (artikelID ${id})` };
    }),
  );

  records.set(
    'abonnements',
    checkArray(top.abonnements ?? [], 'abonnements').map((item, i) => {
      const at = `abonnements[${i}]`;
      const object = checkObject(item, at);
      const email = checkString(object.email, `${at}.email`).trim();
      if (email === '') throw new BundleError(`${at}.email`, 'must not be empty');
      // The key is an e-mail address, personal data: errors (and import_runs) name the record by its index only.
      const where = at;
      refuseUnknownKeys(object, ['email', 'newsletterIDs'], where);
      const ids = checkArray(object.newsletterIDs ?? [], `${where}.newsletterIDs`).map((v, j) =>
        checkInt(v, `${where}.newsletterIDs[${j}]`),
      );
      return { id: emailKey(email), doc: { email, newsletterIDs: [...new Set(ids)] }, where };
    }),
  );

  for (const [kind, list] of [...pending, ...records]) refuseDuplicates(list, kind);

  const deletions = new Map<RecordKind, string[]>();
  if (top.loeschen !== undefined && top.loeschen !== null) {
    if (mode === 'replace') {
      throw new BundleError(
        'bundle.json.loeschen',
        'is refused in replace mode (the bundle is the whole state)',
      );
    }
    const loeschen = checkObject(top.loeschen, 'loeschen');
    refuseUnknownKeys(loeschen, RECORD_KINDS, 'loeschen');
    for (const kind of RECORD_KINDS) {
      const items = checkArray(loeschen[kind] ?? [], `loeschen.${kind}`);
      deletions.set(
        kind,
        items.map((v, i) =>
          kind === 'abonnements'
            ? emailKey(checkString(v, `loeschen.abonnements[${i}]`))
            : String(checkInt(v, `loeschen.${kind}[${i}]`)),
        ),
      );
    }
  }

  const located = [...pending.values()].flat().flatMap((r) => (r.file ? [r.file] : []));
  const hashes = await hashFiles(located, options.onHashing);
  for (const [kind, list] of pending) {
    records.set(
      kind,
      list.map(({ file, ...record }) =>
        file ? { ...record, file: { ...file, sha256: hashes.get(file.path)! } } : record,
      ),
    );
  }
  // Every kind's list was filled above with records of that kind.
  return { mode, records: records as BundleRecords, deletions };
}
