/**
 * Opening the files a bundle names so that what is read is a regular file inside the
 * bundle folder, whatever happens to the folder meanwhile (bundle-format.md, "Files").
 *
 * Node has no openat/O_BENEATH, so a path is opened whole. What is checked, and why it is
 * enough on Linux:
 * - the file is opened with O_NOFOLLOW (a link as the last component fails with ELOOP)
 *   and O_NONBLOCK (a FIFO does not block the open; it is then refused by fstat);
 * - after opening, the kernel's own name for the descriptor (/proc/self/fd/N) must be the
 *   path asked for, below the bundle folder's real path. If a folder on the path is a
 *   link, or was swapped for one up to the moment of the open, the open went through
 *   the link and the kernel names where it really led, so the file is refused (the
 *   folders on the path are then lstat'ed to name the link in the message). A file moved in
 *   from outside by rename is inside the bundle by then (whoever can do that can write
 *   the bundle anyway); a hard link is the one way an outside file has an inside name,
 *   hence the refusal of files with more than one link.
 * Where /proc is not mounted (not Linux), every folder on the path below the bundle
 * folder is lstat'ed before opening (a link refused) and again after, and must be the
 * same (device and inode); the path must still name the opened file: a folder swapped
 * for a link and back between the two checks is the window left there.
 *
 * The opened handle is what gets hashed and stored (BundleFileSource), so a file
 * replaced after it was opened changes nothing. At most `held` handles stay open from
 * hashing to storing (descriptors are limited: 20,000 files must not fail with EMFILE);
 * beyond, a file is opened again by the same rules and must be the same file (device and
 * inode) and hash the same while it is stored.
 */
import { constants } from 'node:fs';
import { type FileHandle, lstat, open, readlink } from 'node:fs/promises';
import path from 'node:path';
import { BundleError } from './validate.ts';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Where a file is: the bundle's real path, and the normalised relative path below it. */
export interface Place {
  readonly root: string;
  readonly relative: string;
  /** For messages: the record and field (`anhaenge[0] (anhangID 1).file`, `bundle.json`). */
  readonly where: string;
  /** For messages: the name as written in bundle.json, quoted, or '' for bundle.json itself. */
  readonly label: string;
}

export interface OpenRules {
  /** Accept a file with more than one hard link (`scoop import --allow-hardlinks`). */
  readonly allowHardlinks: boolean;
}

export interface OpenedFile {
  readonly handle: FileHandle;
  readonly size: number;
  readonly dev: bigint;
  readonly ino: bigint;
}

interface Identity {
  readonly dev: bigint;
  readonly ino: bigint;
}

const same = (a: Identity, b: Identity) => a.dev === b.dev && a.ino === b.ino;

function refuse(place: Place, message: string): BundleError {
  return new BundleError(place.where, `${place.label}${message}`);
}

function missing(place: Place): BundleError {
  return refuse(place, place.label === '' ? 'is missing' : 'does not exist');
}

/** lstat of each folder below the root on the way to the file; a link or a non-folder is refused. */
async function folders(place: Place): Promise<Identity[]> {
  const parts = place.relative.split(path.sep);
  const found: Identity[] = [];
  for (let i = 1; i < parts.length; i++) {
    const relative = parts.slice(0, i).join(path.sep);
    const info = await lstat(path.join(place.root, relative), { bigint: true }).catch(() => undefined);
    if (info?.isSymbolicLink()) {
      throw refuse(
        place,
        `is reached through the symbolic link ${JSON.stringify(relative)}; links in a bundle are not followed`,
      );
    }
    if (!info?.isDirectory()) throw missing(place);
    found.push(info);
  }
  return found;
}

let descriptorsNamed: Promise<boolean> | undefined;

/** Whether the kernel names open files under /proc/self/fd (Linux with /proc mounted). */
function kernelNamesDescriptors(): Promise<boolean> {
  descriptorsNamed ??= lstat('/proc/self/fd').then(
    () => true,
    () => false,
  );
  return descriptorsNamed;
}

/**
 * The opened file is the one at the path asked for, reached through no link (see above).
 * `before` is undefined when the kernel names the descriptor: its name is then the proof,
 * and the folders are looked at only to explain a refusal.
 */
async function checkPlace(
  place: Place,
  handle: FileHandle,
  opened: Identity,
  before: Identity[] | undefined,
) {
  const full = path.join(place.root, place.relative);
  const moved = () =>
    refuse(place, 'was moved, or a folder on its path replaced, while it was opened; refused');
  if (before === undefined) {
    const named = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (named === full) return;
    await folders(place).catch((error: unknown) => {
      throw error instanceof BundleError && error.message.includes('symbolic link') ? error : moved();
    });
    throw moved();
  }
  const after = await folders(place).catch(() => {
    throw moved();
  });
  if (after.some((folder, i) => !same(folder, before[i]!))) throw moved();
  const now = await lstat(full, { bigint: true }).catch(() => undefined);
  if (!now || !same(now, opened)) throw moved();
}

/** Opens the file at `place` by the rules above; the caller closes the handle. */
export async function openInside(place: Place, rules: OpenRules): Promise<OpenedFile> {
  // Without the kernel's name for the descriptor, the folders are compared before and after.
  const before = (await kernelNamesDescriptors()) ? undefined : await folders(place);
  let handle: FileHandle;
  try {
    handle = await open(path.join(place.root, place.relative), OPEN_FLAGS);
  } catch (error) {
    // A link on the way is the better explanation of any failure to open.
    if (before === undefined) await folders(place);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuse(place, 'is a symbolic link; links in a bundle are not followed');
    if (code === 'ENOENT' || code === 'ENOTDIR') throw missing(place);
    if (code === 'ENXIO') throw refuse(place, 'is not a regular file');
    if (code === 'EACCES' || code === 'EPERM') throw refuse(place, 'cannot be read (permission denied)');
    throw error;
  }
  try {
    const info = await handle.stat({ bigint: true });
    await checkPlace(place, handle, info, before);
    if (!info.isFile()) throw refuse(place, 'is not a regular file');
    if (info.nlink > 1n && !rules.allowHardlinks) {
      throw refuse(
        place,
        `has ${info.nlink} hard links, so it may be a file from outside the bundle; refused unless hard links are allowed (scoop import --allow-hardlinks)`,
      );
    }
    return { handle, size: Number(info.size), dev: info.dev, ino: info.ino };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The bytes of an open file from its start, `chunkBytes` at a time (each chunk a buffer of its own). */
export async function* handleChunks(handle: FileHandle, chunkBytes: number): AsyncGenerator<Buffer> {
  let position = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    yield buffer.subarray(0, bytesRead);
  }
}

/**
 * One file of a bundle, opened and checked: read from the handle it was opened with while
 * that is held, or else opened again by the same rules and required to be the same file.
 */
export class BundleFileSource {
  private constructor(
    private readonly place: Place,
    private readonly rules: OpenRules,
    private readonly identity: Identity,
    readonly size: number,
    private held: FileHandle | undefined,
  ) {}

  /** Opens and checks the file; keeps the handle when `hold`, else closes it until it is read. */
  static async open(place: Place, rules: OpenRules, hold: boolean): Promise<BundleFileSource> {
    const opened = await openInside(place, rules);
    if (!hold) await opened.handle.close();
    return new BundleFileSource(place, rules, opened, opened.size, hold ? opened.handle : undefined);
  }

  /** The file's bytes from its start. */
  async *chunks(chunkBytes: number): AsyncGenerator<Buffer> {
    if (this.held) {
      yield* handleChunks(this.held, chunkBytes);
      return;
    }
    const opened = await openInside(this.place, this.rules);
    try {
      if (!same(opened, this.identity)) throw refuse(this.place, 'changed while it was being imported');
      yield* handleChunks(opened.handle, chunkBytes);
    } finally {
      await opened.handle.close();
    }
  }

  async close(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    await held?.close();
  }
}
