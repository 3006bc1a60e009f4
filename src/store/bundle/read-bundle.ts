/**
 * Reads and validates a bundle folder completely before anything is written: JSON,
 * fields, duplicate ids, and every `file` (inside the folder, a regular file, hashed).
 * Files are opened (bundle-file.ts: no link followed) and hashed: a few after everything
 * else is checked; many once the records naming them are, and hashed on a worker thread
 * while this one checks the articles and subscriptions (file-digests.ts), which a mistake
 * found there stops. Either way a mistake in bundle.json is reported before any refusal of
 * a file, and without waiting for gigabytes to be read. References between records are checked
 * later, against the store's final state.
 */
import { closeSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { emailKey, RECORD_KINDS, type RecordKind, type StoredDocument } from '../../contract/documents.ts';
import {
  BUNDLE_FORMAT,
  type Bundle,
  type BundleMode,
  type BundleRecord,
  type BundleRecords,
} from './bundle.ts';
import { descriptorChunks, type OpenRules, openInside } from './bundle-file.ts';
import {
  DIGEST_WORKER_MIN_FILES,
  type Digests,
  type DigestsUnderWay,
  digestOnWorker,
} from './file-digests.ts';
import {
  closeFiles,
  type HashProgress,
  type HeadUser,
  hashFiles,
  headJudge,
  type LocatedFile,
  type OpenedFiles,
  openedByPath,
  openFiles,
} from './hash-files.ts';
import { parseJsonText } from './json-text.ts';
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

/** How many files stay open from hashing to storing (bundle-file.ts); the rest are opened again. */
const HELD_FILES = 256;

const TOP_LEVEL = ['format', 'mode', ...RECORD_KINDS, 'loeschen'];

export interface ReadOptions {
  /**
   * Told how far the hashing of the bundle's files is: after each chunk read when this
   * thread hashes them; from the digest worker (many files), at most every 20 ms and once
   * at the end, in this thread's turn once the rest of bundle.json is checked.
   */
  onHashing?: (progress: HashProgress) => void;
  /** Called once the files are opened, before any is hashed (tests change the folder then). */
  onOpened?: () => void;
  /** Accept files with more than one hard link (`scoop import --allow-hardlinks`). */
  allowHardlinks?: boolean;
  /** How many opened files are held open until they are stored (default 256). */
  heldFiles?: number;
  /** From how many files they are hashed on a worker thread (default DIGEST_WORKER_MIN_FILES). */
  digestOnWorkerFrom?: number;
}

type PendingRecord = Omit<BundleRecord, 'file'> & { readonly file?: LocatedFile };

/** Closes the files a bundle holds open (importFolder does, once it is imported or refused). */
export async function closeBundle(bundle: Bundle): Promise<void> {
  const files = [...bundle.records.values()].flat().flatMap((r) => (r.file ? [r.file.source] : []));
  await Promise.all(files.map((source) => source.close()));
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  // `..` as a whole path segment escapes; a name like `..version.txt` does not.
  const escapes = relative === '..' || relative.startsWith(`..${path.sep}`);
  return relative !== '' && !escapes && !path.isAbsolute(relative);
}

/** The text of `file`: relative, and inside the folder once `..` is resolved (no link is followed later). */
function locateFile(root: string, value: unknown, where: string): LocatedFile {
  const name = checkString(value, where);
  if (name === '' || path.isAbsolute(name) || name.includes('\0')) {
    throw new BundleError(where, 'must be a relative path inside the bundle folder');
  }
  const resolved = path.resolve(root, name);
  if (!isInside(root, resolved))
    throw new BundleError(where, `${JSON.stringify(name)} escapes the bundle folder`);
  return { name, relative: path.relative(root, resolved), where };
}

/** The bundle folder's real path; `…/bundle.json` names its folder (issue 14: as `scoop import …/folder`). */
async function bundleRoot(folder: string): Promise<string> {
  const named =
    path.basename(folder) === 'bundle.json' && !(await stat(folder).catch(() => undefined))?.isDirectory();
  const given = named ? path.dirname(folder) : folder;
  const root = await realpath(given).catch(() => {
    throw new BundleError(given, 'the bundle folder does not exist');
  });
  if (!(await stat(root)).isDirectory()) {
    throw new BundleError(given, 'is not a folder (name the bundle folder, or its bundle.json)');
  }
  return root;
}

/** bundle.json: a regular file in the folder (no link, no FIFO), read whole from one descriptor. */
function readBundleJson(root: string, rules: OpenRules): unknown {
  const place = { root, relative: 'bundle.json', where: 'bundle.json', label: '' };
  const { fd, size } = openInside(place, rules);
  try {
    if (size > MAX_BUNDLE_JSON_BYTES) throw new BundleError('bundle.json', 'is larger than 256 MB');
    // One read of the whole file, its buffer parsed as it is (a file that grew meanwhile is read on, and joined).
    const chunks = [...descriptorChunks(fd, size + 1, size)];
    return parseJsonText(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), 'bundle.json');
  } finally {
    closeSync(fd);
  }
}

function refuseDuplicates(records: readonly { id: string; where: string }[], kind: RecordKind): void {
  const seen = new Map<string, string>();
  for (const r of records) {
    const first = seen.get(r.id);
    if (first) throw new BundleError(r.where, `has the same id as ${first} (duplicate id in ${kind})`);
    seen.set(r.id, r.where);
  }
}

/**
 * Articles, subscriptions, duplicate ids and `loeschen`: what of bundle.json is checked
 * while its files are hashed. The articles and subscriptions are in `records`, the other
 * kinds are added once their files are hashed.
 */
function checkRest(
  top: Record<string, unknown>,
  mode: BundleMode,
  pending: ReadonlyMap<RecordKind, readonly PendingRecord[]>,
): { records: Map<RecordKind, BundleRecord[]>; deletions: Map<RecordKind, string[]> } {
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
  return { records, deletions };
}

/**
 * The bundle at `folder` (or `folder` is its bundle.json), validated, with its files open:
 * the import stores them from those handles, and the caller closes them (closeBundle).
 */
export async function readBundle(folder: string, options: ReadOptions = {}): Promise<Bundle> {
  const root = await bundleRoot(folder);
  const json = readBundleJson(root, { allowHardlinks: options.allowHardlinks === true });
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
      if (rules.extra.includes('file')) file = locateFile(root, object.file, `${where}.file`);
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

  const located = [...pending.values()].flat().flatMap((r) => (r.file ? [r.file] : []));
  // Each file's records, in bundle order, to judge its first bytes against their mimetype.
  const users = new Map<string, HeadUser[]>();
  for (const kind of ['anhaenge', 'bilder'] as const) {
    for (const record of pending.get(kind) ?? []) {
      if (!record.file) continue;
      const list = users.get(record.file.relative) ?? [];
      const { mimetype } = record.doc as StoredDocument<typeof kind>;
      list.push({ kind, mimetype, where: record.where, name: record.file.name });
      users.set(record.file.relative, list);
    }
  }
  const open = (): OpenedFiles => {
    const opened = openFiles(root, located, {
      rules: { allowHardlinks: options.allowHardlinks === true },
      held: options.heldFiles ?? HELD_FILES,
    });
    try {
      options.onOpened?.();
    } catch (error) {
      void closeFiles(opened);
      throw error;
    }
    return opened;
  };
  const hashing = options.onHashing ? { onHashing: options.onHashing } : {};
  // Many files are opened first and hashed on a worker while the rest of bundle.json is
  // checked here: a mistake found meanwhile stops it, and comes before a refusal of a file
  // (kept until then), as when the files are opened after the check.
  let digesting: DigestsUnderWay | undefined;
  let openRefusal: { error: unknown } | undefined;
  if (located.length >= (options.digestOnWorkerFrom ?? DIGEST_WORKER_MIN_FILES)) {
    try {
      digesting = digestOnWorker(open(), hashing, users);
    } catch (error) {
      openRefusal = { error };
    }
  }
  let checked: ReturnType<typeof checkRest>;
  try {
    checked = checkRest(top, mode, pending);
  } catch (error) {
    await digesting?.stop();
    throw error;
  }
  if (openRefusal) throw openRefusal.error;
  const { records, deletions } = checked;
  let digests: Digests;
  if (digesting) digests = await digesting.result();
  else {
    const opened = open();
    const warnings: string[] = [];
    try {
      digests = {
        opened: openedByPath(opened, await hashFiles(opened, hashing, headJudge(users, warnings))),
        warnings,
      };
    } catch (error) {
      await closeFiles(opened);
      throw error;
    }
  }
  const { opened: byPath, warnings } = digests;
  for (const [kind, list] of pending) {
    records.set(
      kind,
      list.map(({ file, ...record }) =>
        file ? { ...record, file: { name: file.name, ...byPath.get(file.relative)! } } : record,
      ),
    );
  }
  // Every kind's list was filled above with records of that kind.
  return { mode, records: records as BundleRecords, deletions, warnings };
}
