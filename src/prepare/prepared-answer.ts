/**
 * A call answered from its prepared answer: one lookup of the fragment and, when it shows
 * binaries, of their blobs' chunks (base64 stored as it is sent), all in one read of one
 * content version. The markup is sent as stored (SOAP) or indented from it (HTTP GET/POST,
 * xml/indent.ts); the binding only adds its envelope.
 */
import type { Arguments, Operation } from '../contract/operations.ts';
import type { ContentStore, Snapshot } from '../store/content-store.ts';
import { encodeBase64 } from '../xml/base64.ts';
import { type BinarySource, base64Length } from '../xml/binary.ts';
import { markWholeText } from '../xml/binary-text.ts';
import type { BodyPart, Layout } from '../xml/writer.ts';
import type { AnswerPack } from './answer-pack.ts';
import { inLayout, splitFragment } from './fragment.ts';
import { ANSWERS_FORMAT, preparedOperation } from './prepared-operations.ts';

/**
 * Where a binary's base64 text may be at hand besides the store: cache/base64-cache.ts's
 * files of whole texts, which are cheaper to read than the store's rows.
 */
export interface TextsAtHand {
  /** Whether this binary's text is kept whole (small enough, named by its SHA-256). */
  keepsWhole(source: BinarySource): boolean;
  /** Whether its text, if at hand, is read whole (`textNow`) rather than streamed: a longer one too. */
  readsNow(source: BinarySource): boolean;
  /** How much of the texts longer than one chunk an answer may read whole; past it they stream. */
  readonly wholeBytesPerAnswer: number;
  /**
   * Its text, if it is at hand now, read into a buffer from `allocate`; a miss is counted
   * unless `countMiss` is false.
   */
  textNow(
    source: BinarySource,
    allocate?: (length: number) => Buffer,
    countMiss?: boolean,
  ): Buffer | undefined;
  /** Keeps its text, as the store gave it, for the next time. */
  keepText(source: BinarySource, text: Buffer): void;
}

/** Where a prepared answer may be found before the store, and is kept once read (answer-pack.ts). */
export interface AnswersAtHand {
  readonly pack: AnswerPack;
  /** The content version the store last said it has, without asking it (ContentStore.peekVersion). */
  readonly version: () => number | undefined;
}

/** Where else preparedInside may find an answer's parts, and what it tells. */
export interface PreparedSources {
  /** Binaries' texts besides the store. */
  readonly texts?: TextsAtHand | undefined;
  /** Buffers for the texts read, which may be lent only until the answer is sent. */
  readonly allocate?: ((length: number) => Buffer) | undefined;
  /** The answer pack: an answer kept there for the store's version is sent from there, one read from the store is kept there. */
  readonly answers?: AnswersAtHand | undefined;
  /** Told where in the pack an answer sent from it is (AnswerPack.tagOf). */
  readonly packed?: ((generation: number, slot: number) => void) | undefined;
}

/**
 * The inside of the call's answer in `layout`, or undefined when it has none to send: then
 * its handler answers (an unknown id, an article outside its window, a resized image, a
 * store whose answers are of another format or were never prepared).
 */
export async function preparedInside(
  store: Pick<ContentStore, 'read'>,
  operation: Operation,
  args: Arguments,
  layout: Layout,
  now: number,
  expires: (at: number) => void,
  { texts, allocate, answers, packed }: PreparedSources = {},
): Promise<BodyPart[] | undefined> {
  const prepared = preparedOperation(operation.name);
  const key = prepared?.keyOf(args);
  if (prepared === undefined || key === undefined) return undefined;
  const version = answers?.version();
  if (version !== undefined) {
    const inside = answers!.pack.inside(version, prepared.name, key, layout, now, expires, allocate, packed);
    if (inside) return inside;
  }
  const read = await store.read(async (snapshot) => {
    const stored = await snapshot.answer(prepared.name, key, ANSWERS_FORMAT, texts === undefined);
    if (!stored) return undefined;
    const { visibleFrom, visibleUntil } = stored;
    // bundle-format.md: outside sichtbarVon/sichtbarBis an article counts as not published.
    if ((visibleFrom !== null && now < visibleFrom) || (visibleUntil !== null && now > visibleUntil))
      return undefined;
    const fragment = inLayout(stored.fragment, layout);
    if (!fragment) return undefined;
    const answer = { ...stored, fragment };
    const { markup, blobIds } = splitFragment(answer.fragment);
    const binaries = blobIds.length === 0 ? [] : await binariesOf(snapshot, blobIds, texts, allocate);
    if (!binaries) return undefined;
    if (visibleUntil !== null) expires(visibleUntil + 1);
    if (binaries.length === 0) return { answer, blobIds, binaries, parts: markup };
    const parts: BodyPart[] = [markup[0]!];
    for (let i = 0; i < binaries.length; i++) parts.push(binaries[i]!, markup[i + 1]!);
    return { answer, blobIds, binaries, parts };
  });
  if (!read) return undefined;
  // Kept once the store vouched for the read (read-versions.ts), when the answer's own
  // statement saw the version the store says it has now: never one older or newer. A blob's
  // content does not change while it has its id, so its text is that version's too.
  if (version !== undefined && read.answer.version === version && answers!.version() === version)
    answers!.pack.keep(
      version,
      prepared.name,
      key,
      layout,
      read.answer,
      textsByBlob(read.blobIds, read.binaries),
    );
  return read.parts;
}

/** The pack's table of an operation's answers requests made (madeKeyOf), apart from its prepared ones. */
function madeName(operation: Operation): string {
  return `${operation.name} made`;
}

/**
 * The inside of the call's answer in `layout` when its handler made it before and the pack
 * kept it (keepMade) for the store's version; undefined otherwise, and for a call whose
 * answer is not kept so (prepared-operations.ts madeKeyOf).
 */
export function madeInside(
  operation: Operation,
  args: Arguments,
  layout: Layout,
  now: number,
  { answers, allocate, packed }: PreparedSources,
): BodyPart[] | undefined {
  const key = preparedOperation(operation.name)?.madeKeyOf?.(args);
  const version = answers?.version();
  if (key === undefined || version === undefined) return undefined;
  return answers!.pack.inside(
    version,
    madeName(operation),
    key,
    layout,
    now,
    () => undefined,
    allocate,
    packed,
  );
}

/**
 * Keeps the answer the call's handler made, `parts` in its binding's envelope (`envelope()`:
 * the envelope's head and tail around an inside in `layout`), for the next call: when its
 * operation's answers are kept so (madeKeyOf), when the store said it had `version` before
 * the handler read and still says so (the content read is that version's, or a newer one's
 * the store had not said yet: the pack's next move drops it either way), and when the parts
 * are that envelope around an inside without references (its binaries inline).
 */
export function keepMade(
  answers: AnswersAtHand,
  operation: Operation,
  args: Arguments,
  layout: Layout,
  version: number,
  envelope: () => readonly [Buffer, Buffer],
  parts: readonly Buffer[],
): void {
  const key = preparedOperation(operation.name)?.madeKeyOf?.(args);
  if (key === undefined || answers.version() !== version) return;
  const body = Buffer.concat(parts);
  const [head, tail] = envelope();
  if (body.length < head.length + tail.length) return;
  if (!body.subarray(0, head.length).equals(head) || !body.subarray(body.length - tail.length).equals(tail))
    return;
  const inside = body.subarray(head.length, body.length - tail.length);
  if (inside.includes(0)) return;
  answers.pack.keepMade(version, madeName(operation), key, layout, inside);
}

/** The texts among `binaries` by their blob's id (streamed ones are left out). */
export function textsByBlob(blobIds: readonly number[], binaries: readonly BodyPart[]): Map<number, Buffer> {
  const texts = new Map<number, Buffer>();
  for (let i = 0; i < blobIds.length; i++) {
    const binary = binaries[i];
    if (Buffer.isBuffer(binary)) texts.set(blobIds[i]!, binary);
  }
  return texts;
}

/**
 * Each reference's binary as the writer would send it: the base64 of a binary of one chunk,
 * at hand (from `texts` when it has it, else as stored, then given to `texts` for the next
 * time); a larger one from `texts` when it reads it whole and has it, else streamed from its
 * chunks. Undefined if a blob is gone.
 */
export async function binariesOf(
  snapshot: Snapshot,
  blobIds: readonly number[],
  texts: TextsAtHand | undefined,
  allocate: ((length: number) => Buffer) | undefined,
): Promise<BodyPart[] | undefined> {
  const parts: BodyPart[] = [];
  /** Of the longer texts read whole: at most `texts.wholeBytesPerAnswer`, past it they stream. */
  let wholeBytes = 0;
  for (const blobId of blobIds) {
    let blob = await snapshot.blob(blobId, texts === undefined);
    if (!blob) return undefined;
    if (texts?.keepsWhole(blob.source)) {
      const text = blob.base64 ?? texts.textNow(blob.source, allocate);
      if (text) {
        parts.push(text);
        continue;
      }
      blob = await snapshot.blob(blobId);
      if (!blob) return undefined;
      const stored = blob.base64 ?? (blob.bytes && encodeBase64(blob.bytes));
      if (stored) {
        texts.keepText(blob.source, stored);
        parts.push(stored);
        continue;
      }
    } else if (
      texts?.readsNow(blob.source) &&
      wholeBytes + base64Length(blob.source.size) <= texts.wholeBytesPerAnswer
    ) {
      // A missing file is not counted as a miss: the streamed text's own lookup counts.
      const whole = texts.textNow(blob.source, allocate, false);
      if (whole) {
        wholeBytes += whole.length;
        const { contentId, size } = blob.source;
        parts.push(markWholeText(whole, { contentId: contentId!, size }));
        continue;
      }
    }
    if (blob.base64) parts.push(blob.base64);
    else if (blob.bytes) parts.push(encodeBase64(blob.bytes));
    else parts.push({ base64Of: blob.source });
  }
  return parts;
}
