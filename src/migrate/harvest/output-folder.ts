/**
 * The harvest's folders. It writes into `<out>.partial` and renames that to `<out>` only
 * when the bundle is whole, so `<out>` is a complete bundle or absent — never one that
 * imports as a partial state. A finished harvest holds `harvest.json` (what was asked, the
 * counts); an `--out` that exists and is neither empty nor a harvest is refused, so a
 * harvest never replaces a folder that is not its own.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { lstat, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { RECORD_KINDS, type RecordKind } from '../../contract/documents.ts';
import { BUNDLE_FORMAT } from '../../store/bundle/bundle.ts';
import { isJournal, JOURNAL_FOLDER, keyOf, type RecordKey } from './journal.ts';

export const HARVEST_FILE = 'harvest.json';
export const HARVEST_FORMAT = 'scoop-harvest/1';

/** A folder the harvest will not write into or replace; the message says why. */
export class OutFolderError extends Error {
  override readonly name = 'OutFolderError';
}

export function partialFolderOf(out: string): string {
  return `${path.resolve(out)}.partial`;
}

async function kindOf(folder: string): Promise<'absent' | 'folder' | 'other'> {
  try {
    return (await lstat(folder)).isDirectory() ? 'folder' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw error;
  }
}

async function isHarvest(folder: string): Promise<boolean> {
  try {
    return JSON.parse(await readFile(path.join(folder, HARVEST_FILE), 'utf8')).format === HARVEST_FORMAT;
  } catch {
    return false;
  }
}

/** Refuses an --out, or its temporary folder, that is not the harvest's to write. */
export async function checkOutFolder(out: string): Promise<void> {
  const kind = await kindOf(out);
  if (kind === 'other') throw new OutFolderError(`--out ${out} exists and is not a folder`);
  if (kind === 'folder' && (await readdir(out)).length > 0 && !(await isHarvest(out))) {
    throw new OutFolderError(
      `--out ${out} exists and is not a harvest (it has no ${HARVEST_FILE}); name a new or empty folder, or one an earlier harvest wrote`,
    );
  }
  const partial = partialFolderOf(out);
  const partialKind = await kindOf(partial);
  if (partialKind === 'other' || (partialKind === 'folder' && !(await isJournal(partial)))) {
    throw new OutFolderError(
      `${partial} exists and is not an interrupted harvest; remove it or choose another --out`,
    );
  }
}

interface LineAt {
  readonly key: RecordKey;
  readonly offset: number;
  readonly length: number;
}

function compareKeys(a: RecordKey, b: RecordKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** Where each record's line is in a kind's record file, ordered by the record's key. */
async function indexOf(kind: RecordKind, file: string): Promise<LineAt[]> {
  const index: LineAt[] = [];
  let offset = 0;
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    const length = Buffer.byteLength(line);
    if (line !== '') index.push({ key: keyOf(kind, JSON.parse(line)), offset, length });
    offset += length + 1;
  }
  return index.sort((a, b) => compareKeys(a.key, b.key));
}

/**
 * Writes bundle.json (format scoop-bundle/1, mode replace) from the journal's record
 * files, each kind's records in the order of their keys, so the same content always makes
 * the same file whatever order the answers came in. Only an index of the lines is held;
 * each record is read back from its file when it is written.
 */
export async function writeBundleJson(folder: string): Promise<void> {
  const out = createWriteStream(path.join(folder, 'bundle.json'));
  const write = async (text: string | Buffer) => {
    if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  };
  const done = new Promise<void>((resolve, reject) => {
    out.once('finish', () => resolve());
    out.once('error', reject);
  });
  await write(`{\n  "format": ${JSON.stringify(BUNDLE_FORMAT)},\n  "mode": "replace"`);
  for (const kind of RECORD_KINDS) {
    await write(`,\n  ${JSON.stringify(kind)}: [`);
    const file = path.join(folder, JOURNAL_FOLDER, `${kind}.jsonl`);
    const index = await indexOf(kind, file);
    const handle = await open(file, 'r');
    try {
      for (const [i, line] of index.entries()) {
        const bytes = Buffer.alloc(line.length);
        await handle.read(bytes, 0, line.length, line.offset);
        await write(`${i === 0 ? '' : ','}\n    `);
        await write(bytes);
      }
    } finally {
      await handle.close();
    }
    await write(index.length === 0 ? ']' : '\n  ]');
  }
  await write('\n}\n');
  out.end();
  await done;
}

/**
 * Makes the finished harvest in `partial` the folder `out`: writes harvest.json, drops the
 * journal, and renames. An earlier harvest at `out` is moved aside first and removed after.
 */
export async function publish(
  partial: string,
  out: string,
  summary: Readonly<Record<string, unknown>>,
): Promise<void> {
  await writeFile(
    path.join(partial, HARVEST_FILE),
    `${JSON.stringify({ format: HARVEST_FORMAT, ...summary }, null, 2)}\n`,
  );
  await rm(path.join(partial, JOURNAL_FOLDER), { recursive: true, force: true });
  const target = path.resolve(out);
  const kind = await kindOf(target);
  if (kind === 'folder' && (await readdir(target)).length > 0) {
    const aside = `${target}.previous-${process.pid}`;
    await rename(target, aside);
    await rename(partial, target);
    await rm(aside, { recursive: true, force: true });
    return;
  }
  // rename(2) replaces an empty folder.
  await rename(partial, target);
}
