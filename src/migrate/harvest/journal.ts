/**
 * What a harvest has written so far, in its temporary folder, so that a killed harvest
 * can go on (`--resume`) without asking again for what it has:
 *
 *   .harvest/state.json      what was asked (the fingerprint), how far the job sequence is
 *                            done (`position`: every job before it is finished), the counts
 *   .harvest/<kind>.jsonl    the bundle's records of each kind, one JSON line each, appended
 *                            as they are harvested
 *   files/anhaenge/<id>      the binaries, each renamed into place once whole
 *   files/bilder/<id>
 *
 * Per record, only its key is held in memory (which records the bundle has: what the
 * bundle needs anyway); an id that is unknown or done costs nothing once the position
 * passes it. Lines are gathered in memory and written out in the order of RECORD_KINDS
 * (areas and attachments before the articles that list them, newsletters before the
 * subscriptions), at the latest at each checkpoint, then flushed to disk before the
 * checkpoint moves the position past them. So a kill loses at most lines whose jobs the
 * position had not passed (they are asked again), and leaves at most a last line cut
 * short, which resuming drops; an article's line is never on disk without those of its
 * attachments.
 */
import { closeSync, fsync, openSync, writeSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { emailKey, RECORD_KINDS, type RecordKind } from '../../contract/documents.ts';
import { BINARY_FOLDERS, type BundleJson } from './records.ts';

export const JOURNAL_FOLDER = '.harvest';
/** Lines gathered before they are written (besides at each checkpoint). */
const WRITE_BATCH = 256 * 1024;
const STATE_FORMAT = 'scoop-harvest-state/1';

/** Per record kind, what the harvest did. */
export interface KindCounts {
  /** Records in the bundle. */
  records: number;
  /** Of those, records that came with another answer (an article's areas and attachments, a subscription's newsletters). */
  yielded: number;
  /** Ids the source answered as unknown (and addresses with no subscription). */
  unknown: number;
  /** Ids not asked for because their record came with another answer first. */
  skipped: number;
  /** Requests that still failed after every retry. */
  failed: number;
  /** Answers the bundle cannot hold, left out with a warning. */
  leftOut: number;
  /** Bytes of binaries written. */
  bytes: number;
}

export type Counts = Record<RecordKind, KindCounts>;

export function emptyCounts(): Counts {
  const counts: Partial<Counts> = {};
  for (const kind of RECORD_KINDS)
    counts[kind] = { records: 0, yielded: 0, unknown: 0, skipped: 0, failed: 0, leftOut: 0, bytes: 0 };
  return counts as Counts;
}

/** What a harvest was asked to do; a resumed harvest must have been asked the same. */
export type Fingerprint = Readonly<Record<string, string | null>>;

interface State {
  readonly format: typeof STATE_FORMAT;
  readonly fingerprint: Fingerprint;
  readonly position: number;
  readonly counts: Counts;
  readonly started: string;
}

export class JournalMismatch extends Error {
  override readonly name = 'JournalMismatch';
}

const ID_FIELDS: Record<RecordKind, string> = {
  bereiche: 'bereichID',
  cityAppBereiche: 'cityAppBereichID',
  anhaenge: 'anhangID',
  bilder: 'bildID',
  artikel: 'artikelID',
  newsletter: 'newsletterID',
  abonnements: 'email',
};

export type RecordKey = number | string;

/** The key a record of `kind` is found by: its id, or for a subscription its address's emailKey. */
export function keyOf(kind: RecordKind, record: BundleJson): RecordKey {
  const value = record[ID_FIELDS[kind]];
  if (kind === 'abonnements' && typeof value === 'string') return emailKey(value);
  if (typeof value === 'number') return value;
  throw new Error(`a ${kind} record without its ${ID_FIELDS[kind]}`);
}

export function isJournal(folder: string): Promise<boolean> {
  return stat(path.join(folder, JOURNAL_FOLDER, 'state.json')).then(
    (s) => s.isFile(),
    () => false,
  );
}

export class Journal {
  private readonly keys = new Map<RecordKind, Set<RecordKey>>();
  private readonly fds = new Map<RecordKind, number>();
  private readonly buffered = new Map<RecordKind, string[]>();
  private bufferedBytes = 0;
  private constructor(
    readonly folder: string,
    private state: State,
  ) {
    for (const kind of RECORD_KINDS) this.keys.set(kind, new Set());
  }

  get position(): number {
    return this.state.position;
  }

  get counts(): Counts {
    return this.state.counts;
  }

  get started(): string {
    return this.state.started;
  }

  /** A new journal in `folder`, which must not exist yet. */
  static async create(folder: string, fingerprint: Fingerprint): Promise<Journal> {
    await mkdir(folder);
    await mkdir(path.join(folder, JOURNAL_FOLDER));
    for (const sub of Object.values(BINARY_FOLDERS)) await mkdir(path.join(folder, sub), { recursive: true });
    const journal = new Journal(folder, {
      format: STATE_FORMAT,
      fingerprint,
      position: 0,
      counts: emptyCounts(),
      started: new Date().toISOString(),
    });
    journal.openFiles();
    await journal.writeState();
    return journal;
  }

  /** The journal of an interrupted harvest in `folder`; refused when it was asked something else. */
  static async resume(folder: string, fingerprint: Fingerprint): Promise<Journal> {
    const state = JSON.parse(
      await readFile(path.join(folder, JOURNAL_FOLDER, 'state.json'), 'utf8'),
    ) as State;
    if (state.format !== STATE_FORMAT)
      throw new JournalMismatch(`${folder} holds a harvest of another version`);
    const differs = Object.keys({ ...fingerprint, ...state.fingerprint }).filter(
      (key) => fingerprint[key] !== state.fingerprint[key],
    );
    if (differs.length > 0) {
      const named = differs.map((key) => (key === 'emails' ? 'the --emails file' : `--${key}`)).join(', ');
      throw new JournalMismatch(
        `the interrupted harvest in ${folder} was started with another ${named}; run it again with the same, or without --resume to start over`,
      );
    }
    const journal = new Journal(folder, state);
    for (const kind of RECORD_KINDS) await journal.load(kind);
    for (const sub of Object.values(BINARY_FOLDERS)) {
      // Binaries that were still streaming in when the harvest stopped.
      const dir = path.join(folder, sub);
      for (const name of await readdir(dir)) if (name.startsWith('.part-')) await rm(path.join(dir, name));
    }
    journal.openFiles();
    return journal;
  }

  private file(kind: RecordKind): string {
    return path.join(this.folder, JOURNAL_FOLDER, `${kind}.jsonl`);
  }

  /** Reads the keys of the records written before; drops a last line cut short. */
  private async load(kind: RecordKind): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file(kind), 'utf8');
    } catch {
      return;
    }
    const whole = text.lastIndexOf('\n') + 1;
    if (whole < text.length) await truncate(this.file(kind), Buffer.byteLength(text.slice(0, whole)));
    const keys = this.keys.get(kind)!;
    for (const line of text.slice(0, whole).split('\n')) {
      if (line !== '') keys.add(keyOf(kind, JSON.parse(line)));
    }
  }

  private openFiles(): void {
    for (const kind of RECORD_KINDS) this.fds.set(kind, openSync(this.file(kind), 'a'));
  }

  has(kind: RecordKind, key: RecordKey): boolean {
    return this.keys.get(kind)!.has(key);
  }

  /**
   * Claims a key for a record about to be appended: false when the bundle has it (or
   * another answer claimed it) already. Claimed at once, before the record's binary is
   * renamed into place, so that two answers bringing the same record cannot both take it.
   */
  reserve(kind: RecordKind, key: RecordKey): boolean {
    const keys = this.keys.get(kind)!;
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  }

  /** Appends a record whose key is new. */
  add(kind: RecordKind, record: BundleJson): void {
    const key = keyOf(kind, record);
    if (!this.reserve(kind, key)) throw new Error(`${kind} ${key} is in the bundle already`);
    this.append(kind, record);
  }

  /** Appends a record whose key `reserve` claimed. */
  append(kind: RecordKind, record: BundleJson): void {
    const line = `${JSON.stringify(record)}\n`;
    const lines = this.buffered.get(kind);
    if (lines) lines.push(line);
    else this.buffered.set(kind, [line]);
    this.bufferedBytes += line.length;
    if (this.bufferedBytes > WRITE_BATCH) this.write();
  }

  /** Writes the gathered lines, kind by kind in RECORD_KINDS order. */
  private write(): void {
    for (const kind of RECORD_KINDS) {
      const lines = this.buffered.get(kind);
      if (lines && lines.length > 0) writeSync(this.fds.get(kind)!, lines.join(''));
    }
    this.buffered.clear();
    this.bufferedBytes = 0;
  }

  /** Records every job before `position` as done, once the records so far are on disk. */
  async checkpoint(position: number): Promise<void> {
    this.write();
    // Asynchronous: an fsync can take tens of milliseconds, which would stall every request in flight.
    await Promise.all([...this.fds.values()].map((fd) => new Promise((resolve) => fsync(fd, resolve))));
    this.state = { ...this.state, position };
    await this.writeState();
  }

  private async writeState(): Promise<void> {
    const file = path.join(this.folder, JOURNAL_FOLDER, 'state.json');
    await writeFile(`${file}.new`, JSON.stringify(this.state, null, 2));
    await rename(`${file}.new`, file);
  }

  /** The records of a kind as written, one JSON text each. */
  async lines(kind: RecordKind): Promise<string[]> {
    const text = await readFile(this.file(kind), 'utf8');
    return text.split('\n').filter((line) => line !== '');
  }

  /** Closes the record files (again is harmless). */
  close(): void {
    if (this.fds.size > 0) this.write();
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}
