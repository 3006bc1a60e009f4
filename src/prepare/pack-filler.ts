/**
 * Fills the answer pack (answer-pack.ts) from the store in the background: after the start
 * and after every import, every prepared answer of the store's version, page by page, one
 * page a turn of the event loop, so requests go on between pages. Requests keep what they
 * read from the store too, so an answer asked for before its page comes is kept at once.
 * Without this, the pack would only fill as each of many ids is asked for (a cold cache for
 * a long time under traffic spread over many ids: docs/performance.md, "The fifteenth round").
 *
 * At a new version it first asks the store what the imports since the pack's version changed
 * (store/answer-changes.ts): when the store can tell, the pack drops those answers only and
 * the filler reads just them again, so an editorial import leaves most answers in the pack
 * (docs/performance.md, "The eighteenth round"); otherwise the pack is emptied and filled.
 */
import type { AnswerKey, ContentStore, PagedAnswer } from '../store/content-store.ts';
import type { AnswerPack, PackMove } from './answer-pack.ts';
import { inLayout, splitFragment } from './fragment.ts';
import { binariesOf, type TextsAtHand, textsByBlob } from './prepared-answer.ts';
import { ANSWERS_FORMAT } from './prepared-operations.ts';

export interface PackFillerOptions {
  readonly store: Pick<
    ContentStore,
    'answerPage' | 'answerChanges' | 'read' | 'peekVersion' | 'knownVersion'
  >;
  readonly pack: AnswerPack;
  /** Where binaries' texts are read from besides the store (the base64 cache's files). */
  readonly texts?: TextsAtHand | undefined;
  /** How often the store's version is looked at, in ms. */
  readonly everyMs?: number;
  /** Answers read a turn. */
  readonly pageSize?: number;
  /** Told when a fill stops on an error: the next change of version starts another. */
  readonly onError?: (error: unknown) => void;
  /** Told when a version's answers are all in the pack, or as many as it takes: how many it holds (each layout counted). */
  readonly onFilled?: (version: number, answers: number) => void;
  /** Told how a pack holding answers was brought to a new version, and how many it kept (each layout counted). */
  readonly onMoved?: (version: number, move: PackMove, kept: number) => void;
}

function turn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** How often the store's version is looked at by default: a look is a read of memory (ContentStore.peekVersion). */
const EVERY_MS = 100;

/**
 * Texts of one answer fit in it, most of the time: a stored chunk's each, and up to 2 MiB in
 * all of an answer's longer ones (TextsAtHand.wholeBytesPerAnswer, prepared-answer.ts); what
 * does not fit gets memory of its own. At 1 MiB, the longer texts read in fresh memory during
 * a fill of the realistic mix left the process 18 MiB larger (docs/performance.md, "The
 * thirtieth round").
 */
const SCRATCH_BYTES = 4 * 1024 * 1024;

export class PackFiller {
  /** The version filled or being filled. */
  private version: number | undefined;
  /** The last version whose answers were all read into the pack; 0 before the first. */
  private filled = 0;
  /** Its token (AnswerPack.mark): a number alone may be another copy's (a store restored from a backup). */
  private filledToken: string | undefined;
  /** Where a page's texts are read into, from the start for each answer (they are written at once). */
  private readonly scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  private scratchUsed = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** How often a pack holding answers was moved to a new version, by how (PackMove). */
  readonly moves = { advanced: 0, emptied: 0 };
  /** Fills that failed in a row, and when the next may start (each failure doubles the wait). */
  private failures = 0;
  private retryAt = 0;

  constructor(private readonly options: PackFillerOptions) {}

  /** Fills the pack with the store's version now, and again whenever the version changes. */
  start(): void {
    if (this.timer) return;
    const everyMs = this.options.everyMs ?? EVERY_MS;
    const look = () => {
      const version = this.options.store.peekVersion();
      if (version === undefined || version === this.version || this.running || Date.now() < this.retryAt)
        return;
      this.fill(version);
    };
    void this.options.store.knownVersion().then(
      (version) => {
        if (!this.stopped && !this.running) this.fill(version);
      },
      (error: unknown) => this.options.onError?.(error),
    );
    this.timer = setInterval(look, everyMs);
    this.timer.unref();
  }

  /** Stops, after the page being read. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** The last content version whose answers were all read into the pack (0: none yet). */
  get filledVersion(): number {
    return this.filled;
  }

  /** Resolves when the fill under way (if any) has ended. */
  async settled(): Promise<void> {
    await this.running;
  }

  private fill(version: number): void {
    this.version = version;
    this.running = this.pages(version)
      .then(
        () => {
          this.failures = 0;
        },
        (error: unknown) => {
          // Tried again after a wait (everyMs, doubled with each failure in a row, at most a minute).
          this.version = undefined;
          this.failures++;
          this.retryAt =
            Date.now() + Math.min(60_000, (this.options.everyMs ?? EVERY_MS) * 2 ** this.failures);
          this.options.onError?.(error);
        },
      )
      .finally(() => {
        this.running = undefined;
      });
  }

  private async pages(version: number): Promise<void> {
    const { store, pack } = this.options;
    const pageSize = this.options.pageSize ?? 64;
    await turn();
    if (this.stopped) return;
    const mark = pack.mark;
    // Whether the pack held every answer of its version it could take: then only the changed ones are missing.
    const complete = mark !== undefined && this.filled === mark.version && this.filledToken === mark.token;
    const now = await store.answerChanges(mark);
    if (now.version !== version || store.peekVersion() !== version) {
      this.version = undefined;
      return;
    }
    const held = pack.size;
    const move = pack.moveTo(now, now.changes && mark && { mark, changes: now.changes });
    // Emptying an empty pack (at the start) is no news.
    if (move === 'advanced' || (move === 'emptied' && held > 0)) {
      this.moves[move]++;
      this.options.onMoved?.(version, move, pack.size);
    }
    if (move === 'advanced') {
      const changed = now.changes!.answers;
      for (let from = 0; from < changed.length; from += pageSize) {
        await turn();
        if (this.stopped) return;
        const answers = await this.answersOf(version, changed.slice(from, from + pageSize));
        if (!answers) {
          this.version = undefined;
          return;
        }
        await this.keepAll(version, answers);
      }
      if (complete) return this.done(version);
    }
    let after: AnswerKey | undefined;
    for (;;) {
      await turn();
      if (this.stopped) return;
      // Full (or closed): as filled as it gets for this version.
      if (!pack.takes(version)) return this.done(version);
      const page = await store.answerPage(ANSWERS_FORMAT, after, pageSize);
      // An import committed since, or the store does not say it has this version yet: the
      // next look at the version starts over with the one it says.
      if (page.version !== version || store.peekVersion() !== version) {
        this.version = undefined;
        return;
      }
      await this.keepAll(version, page.answers);
      const last = page.answers.at(-1);
      if (!last || page.answers.length < pageSize) return this.done(version);
      after = { operation: last.operation, key: last.key };
    }
  }

  /** Keeps answers of `version` in the pack, in both layouts, with the texts it lacks. */
  private async keepAll(version: number, answers: readonly PagedAnswer[]): Promise<void> {
    const { pack } = this.options;
    for (const answer of answers) {
      const blobIds = splitFragment(answer.compact).blobIds.filter((id) => !pack.hasText(version, id));
      const texts = blobIds.length === 0 ? new Map<number, Buffer>() : await this.textsOf(blobIds);
      if (!texts) continue;
      for (const layout of ['compact', 'indented'] as const) {
        const fragment = inLayout(answer.compact, layout);
        // Not kept (a damaged row): requests read it from the store, where the handler answers.
        if (fragment)
          pack.keep(version, answer.operation, answer.key, layout, { ...answer, fragment }, texts);
      }
    }
  }

  /**
   * The answers to these keys as the store has them at `version` (an answer removed has
   * none); undefined once the store has another version.
   */
  private answersOf(version: number, keys: readonly AnswerKey[]): Promise<PagedAnswer[] | undefined> {
    return this.options.store.read(async (snapshot) => {
      // Asked for at once: PostgreSQL's lookups of one turn go out as one statement (answer-batch.ts).
      const read = await Promise.all(
        keys.map(({ operation, key }) => snapshot.answer(operation, key, ANSWERS_FORMAT, false)),
      );
      if (read.some((answer) => answer !== undefined && answer.version !== version)) return undefined;
      const answers: PagedAnswer[] = [];
      for (const [i, { operation, key }] of keys.entries()) {
        const answer = read[i];
        if (!answer) continue;
        const { fragment: compact, visibleFrom, visibleUntil } = answer;
        answers.push({ operation, key, compact, visibleFrom, visibleUntil });
      }
      return answers;
    });
  }

  private done(version: number): void {
    this.filled = version;
    this.filledToken = this.options.pack.mark?.token;
    this.options.onFilled?.(version, this.options.pack.size);
  }

  /** Texts go into the scratch buffer while it has room, not into fresh memory each. */
  private readonly allocate = (length: number): Buffer => {
    if (this.scratchUsed + length > this.scratch.length) return Buffer.allocUnsafe(length);
    const buffer = this.scratch.subarray(this.scratchUsed, this.scratchUsed + length);
    this.scratchUsed += length;
    return buffer;
  };

  private textsOf(blobIds: readonly number[]): Promise<Map<number, Buffer> | undefined> {
    return this.options.store.read(async (snapshot) => {
      this.scratchUsed = 0;
      const binaries = await binariesOf(snapshot, blobIds, this.options.texts, this.allocate);
      return binaries && textsByBlob(blobIds, binaries);
    });
  }
}
