/**
 * The harvest's folders. It writes into `<out>.partial` and renames that to `<out>` only
 * when the bundle is whole, so `<out>` is a complete bundle or absent — never one that
 * imports as a partial state. A finished harvest holds `harvest.json` (what was asked, the
 * counts); an `--out` that exists and is neither empty nor a harvest is refused, so a
 * harvest never replaces a folder that is not its own.
 */
import { closeSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { lstat, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
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
  const parent = path.dirname(path.resolve(out));
  if ((await kindOf(parent)) !== 'folder')
    throw new OutFolderError(`--out ${out}: the folder ${parent} does not exist`);
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

/** A record line's key: its id is its first field, read without parsing the line (a subscription's address is parsed). */
function keyOfLine(kind: RecordKind, line: string): RecordKey {
  const id = /^\{"[A-Za-z]+ID":(-?\d+)[,}]/.exec(line);
  return id ? Number(id[1]) : keyOf(kind, JSON.parse(line));
}

const BLOCK = 1024 * 1024;

/** Where each record's line is in a kind's record file, ordered by the record's key; read a block at a time. */
function indexOf(kind: RecordKind, fd: number): LineAt[] {
  const index: LineAt[] = [];
  const block = Buffer.alloc(BLOCK);
  let carry = Buffer.alloc(0);
  let offset = 0; // of carry's first byte in the file
  for (;;) {
    const n = readSync(fd, block, 0, BLOCK, offset + carry.length);
    if (n === 0) break;
    const bytes = carry.length > 0 ? Buffer.concat([carry, block.subarray(0, n)]) : block.subarray(0, n);
    let start = 0;
    for (let eol = bytes.indexOf(0x0a); eol >= 0; eol = bytes.indexOf(0x0a, start)) {
      if (eol > start)
        index.push({
          key: keyOfLine(kind, bytes.toString('utf8', start, eol)),
          offset: offset + start,
          length: eol - start,
        });
      start = eol + 1;
    }
    carry = Buffer.from(bytes.subarray(start));
    offset += start;
  }
  return index.sort((a, b) => compareKeys(a.key, b.key));
}

/**
 * Writes bundle.json (format scoop-bundle/1, mode replace) from the journal's record
 * files, each kind's records in the order of their keys, so the same content always makes
 * the same file whatever order the answers came in. Only an index of the lines is held;
 * each record is read back from its file as it is written. Synchronous, in large pieces:
 * nothing else runs by then, and a write or read per record through the thread pool cost
 * more than the records themselves.
 */
export function writeBundleJson(folder: string): void {
  const out = openSync(path.join(folder, 'bundle.json'), 'w');
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  const write = (piece: Buffer) => {
    pending.push(piece);
    pendingBytes += piece.length;
    if (pendingBytes >= BLOCK) flush();
  };
  const flush = () => {
    if (pendingBytes > 0) writeSync(out, Buffer.concat(pending));
    pending.length = 0;
    pendingBytes = 0;
  };
  try {
    write(Buffer.from(`{\n  "format": ${JSON.stringify(BUNDLE_FORMAT)},\n  "mode": "replace"`));
    for (const kind of RECORD_KINDS) {
      write(Buffer.from(`,\n  ${JSON.stringify(kind)}: [`));
      const fd = openSync(path.join(folder, JOURNAL_FOLDER, `${kind}.jsonl`), 'r');
      try {
        const index = indexOf(kind, fd);
        for (const [i, line] of index.entries()) {
          write(Buffer.from(i === 0 ? '\n    ' : ',\n    '));
          const bytes = Buffer.allocUnsafe(line.length);
          readSync(fd, bytes, 0, line.length, line.offset);
          write(bytes);
        }
        write(Buffer.from(index.length === 0 ? ']' : '\n  ]'));
      } finally {
        closeSync(fd);
      }
    }
    write(Buffer.from('\n}\n'));
    flush();
    fsyncSync(out);
  } finally {
    closeSync(out);
  }
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
