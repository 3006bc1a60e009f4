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
 * The opened descriptor is what gets hashed and stored (BundleFileSource), so a file
 * replaced after it was opened changes nothing. At most `held` descriptors stay open from
 * hashing to storing (descriptors are limited: 20,000 files must not fail with EMFILE);
 * beyond, a file is opened again by the same rules and must be the same file (device and
 * inode) and hash the same while it is stored.
 *
 * The calls are synchronous: an import does nothing else meanwhile, and a bundle of
 * thousands of small files paid more for the trips of promise-based calls through
 * libuv's thread pool (open, fstat, readlink, read, close: five or more a file, twice)
 * than for the files' bytes.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync } from 'node:fs';
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
  readonly fd: number;
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
function folders(place: Place): Identity[] {
  const parts = place.relative.split(path.sep);
  const found: Identity[] = [];
  for (let i = 1; i < parts.length; i++) {
    const relative = parts.slice(0, i).join(path.sep);
    const info = lstatOrUndefined(path.join(place.root, relative));
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

function lstatOrUndefined(file: string) {
  return lstatSync(file, { bigint: true, throwIfNoEntry: false });
}

let descriptorsNamed: boolean | undefined;

/** Whether the kernel names open files under /proc/self/fd (Linux with /proc mounted). */
function kernelNamesDescriptors(): boolean {
  descriptorsNamed ??= lstatOrUndefined('/proc/self/fd') !== undefined;
  return descriptorsNamed;
}

/**
 * The opened file is the one at the path asked for, reached through no link (see above).
 * `before` is undefined when the kernel names the descriptor: its name is then the proof,
 * and the folders are looked at only to explain a refusal.
 */
function checkPlace(place: Place, fd: number, opened: Identity, before: Identity[] | undefined): void {
  const full = path.join(place.root, place.relative);
  const moved = () =>
    refuse(place, 'was moved, or a folder on its path replaced, while it was opened; refused');
  if (before === undefined) {
    let named: string | undefined;
    try {
      named = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      named = undefined;
    }
    if (named === full) return;
    try {
      folders(place);
    } catch (error) {
      throw error instanceof BundleError && error.message.includes('symbolic link') ? error : moved();
    }
    throw moved();
  }
  let after: Identity[];
  try {
    after = folders(place);
  } catch {
    throw moved();
  }
  if (after.some((folder, i) => !same(folder, before[i]!))) throw moved();
  const now = lstatOrUndefined(full);
  if (!now || !same(now, opened)) throw moved();
}

/** Opens the file at `place` by the rules above; the caller closes the descriptor. */
export function openInside(place: Place, rules: OpenRules): OpenedFile {
  // Without the kernel's name for the descriptor, the folders are compared before and after.
  const before = kernelNamesDescriptors() ? undefined : folders(place);
  let fd: number;
  try {
    fd = openSync(path.join(place.root, place.relative), OPEN_FLAGS);
  } catch (error) {
    // A link on the way is the better explanation of any failure to open.
    if (before === undefined) folders(place);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw refuse(place, 'is a symbolic link; links in a bundle are not followed');
    if (code === 'ENOENT' || code === 'ENOTDIR') throw missing(place);
    if (code === 'ENXIO') throw refuse(place, 'is not a regular file');
    if (code === 'EACCES' || code === 'EPERM') throw refuse(place, 'cannot be read (permission denied)');
    throw error;
  }
  try {
    const info = fstatSync(fd, { bigint: true });
    checkPlace(place, fd, info, before);
    if (!info.isFile()) throw refuse(place, 'is not a regular file');
    if (info.nlink > 1n && !rules.allowHardlinks) {
      throw refuse(
        place,
        `has ${info.nlink} hard links, so it may be a file from outside the bundle; refused unless hard links are allowed (scoop import --allow-hardlinks)`,
      );
    }
    return { fd, size: Number(info.size), dev: info.dev, ino: info.ino };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * The bytes of an open regular file from its start, `chunkBytes` at a time: each chunk a
 * buffer of its own (no larger than what is left of `size` and one byte more), or with a
 * `scratch` buffer of at least `chunkBytes`, a view of it valid until the next chunk is
 * asked for. A read of fewer bytes than asked is the file's end (read(2)), so a file
 * smaller than a chunk takes one read, not two.
 */
export function* descriptorChunks(
  fd: number,
  chunkBytes: number,
  size: number,
  scratch?: Buffer,
): Generator<Buffer> {
  let position = 0;
  for (;;) {
    // Past the expected size (a file that grew) whole chunks again.
    const asked = position <= size ? Math.min(chunkBytes, size - position + 1) : chunkBytes;
    const buffer = scratch ?? Buffer.allocUnsafe(asked);
    const bytesRead = readSync(fd, buffer, 0, asked, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    yield bytesRead === asked ? buffer : buffer.subarray(0, bytesRead);
    if (bytesRead < asked) return;
  }
}

/**
 * A BundleFileSource as plain data, for another thread of the process (file-encoder.ts):
 * a descriptor is the process's, so the other thread reads the one held here.
 */
export interface SourceDescription {
  readonly place: Place;
  readonly rules: OpenRules;
  readonly identity: Identity;
  readonly size: number;
  readonly held: number | undefined;
}

/**
 * One file of a bundle, opened and checked: read from the descriptor it was opened with
 * while that is held, or else opened again by the same rules and required to be the same file.
 */
export class BundleFileSource {
  private constructor(
    private readonly place: Place,
    private readonly rules: OpenRules,
    private readonly identity: Identity,
    readonly size: number,
    private held: number | undefined,
  ) {}

  /** Opens and checks the file; keeps the descriptor when `hold`, else closes it until it is read. */
  static open(place: Place, rules: OpenRules, hold: boolean): BundleFileSource {
    const opened = openInside(place, rules);
    if (!hold) closeSync(opened.fd);
    return new BundleFileSource(place, rules, opened, opened.size, hold ? opened.fd : undefined);
  }

  /** The same file read in another thread, which never closes a held descriptor (the owner does). */
  static described(d: SourceDescription): BundleFileSource {
    return new BundleFileSource(d.place, d.rules, d.identity, d.size, d.held);
  }

  describe(): SourceDescription {
    const { place, rules, identity, size, held } = this;
    return { place, rules, identity: { dev: identity.dev, ino: identity.ino }, size, held };
  }

  /** The file's bytes from its start; with `scratch`, read into it (see descriptorChunks). */
  async *chunks(chunkBytes: number, scratch?: Buffer): AsyncGenerator<Buffer> {
    if (this.held !== undefined) {
      yield* descriptorChunks(this.held, chunkBytes, this.size, scratch);
      return;
    }
    const opened = openInside(this.place, this.rules);
    try {
      if (!same(opened, this.identity)) throw refuse(this.place, 'changed while it was being imported');
      yield* descriptorChunks(opened.fd, chunkBytes, this.size, scratch);
    } finally {
      closeSync(opened.fd);
    }
  }

  async close(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    if (held !== undefined) closeSync(held);
  }
}
