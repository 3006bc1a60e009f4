import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { OPERATIONS } from '../contract/operations.ts';
import type { Snapshot } from '../store/content-store.ts';
import type { BodyPart } from '../xml/writer.ts';
import { AnswerPack, type AnswerPackOptions, type PackMove } from './answer-pack.ts';
import { type AnswersAtHand, preparedInside } from './prepared-answer.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'scoop-answer-pack-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function packOf(options: Partial<AnswerPackOptions> = {}): AnswerPack {
  return AnswerPack.open({ dir, maxBytes: 1024 * 1024, ...options });
}

/** A fragment as the store keeps it: markup with `NUL id NUL` where each binary goes. */
function fragment(...pieces: Array<string | number>): Buffer {
  return Buffer.from(
    pieces.map((piece) => (typeof piece === 'number' ? `\u0000${piece}\u0000` : piece)).join(''),
  );
}

function text(parts: readonly BodyPart[] | undefined): string | undefined {
  return parts?.map((part) => (Buffer.isBuffer(part) ? part.toString() : '?')).join('');
}

const never = () => undefined;
const NONE = new Map<number, Buffer>();
const open = { visibleFrom: null, visibleUntil: null };

/** Moves `pack` from version 1 on, a version a call, each move's changes naming getAnhang 1 alone. */
function stepper(pack: AnswerPack): { readonly version: number; next(): PackMove } {
  let mark = { version: 1, token: 't1' };
  pack.moveTo(mark);
  const changes = { answers: [{ operation: 'getAnhang', key: '1' }], blobs: [] };
  return {
    get version() {
      return mark.version;
    },
    next() {
      const to = { version: mark.version + 1, token: `t${mark.version + 1}` };
      const move = pack.moveTo(to, { mark, changes });
      mark = to;
      return move;
    },
  };
}

describe('the answer pack', () => {
  test('an answer kept is sent as it was read, each binary in its place', () => {
    const pack = packOf();
    pack.keep(
      3,
      'getArtikelDetails',
      '7',
      'compact',
      { ...open, fragment: fragment('<a>', 41, '<b>', 42, '</b></a>') },
      new Map([
        [41, Buffer.from('QUJD')],
        [42, Buffer.from('REVG')],
      ]),
    );
    const parts = pack.inside(3, 'getArtikelDetails', '7', 'compact', 0, never);
    assert.equal(text(parts), '<a>QUJD<b>REVG</b></a>');
    assert.equal(parts!.length, 5);
    assert.equal(pack.inside(3, 'getArtikelDetails', '7', 'indented', 0, never), undefined, 'another layout');
    assert.equal(pack.inside(3, 'getArtikelDetails', '8', 'compact', 0, never), undefined, 'another key');
    assert.equal(pack.inside(3, 'getAnhang', '7', 'compact', 0, never), undefined, 'another operation');
    pack.close();
  });

  test('texts go into buffers from `allocate`', () => {
    const pack = packOf();
    pack.keep(
      1,
      'getAnhang',
      '5',
      'compact',
      { ...open, fragment: fragment('<x>', 9, '</x>') },
      new Map([[9, Buffer.from('AAAA')]]),
    );
    const lengths: number[] = [];
    const parts = pack.inside(1, 'getAnhang', '5', 'compact', 0, never, (length) => {
      lengths.push(length);
      return Buffer.alloc(length + 100);
    });
    assert.equal(text(parts), '<x>AAAA</x>');
    assert.deepEqual(lengths, [fragment('<x>', 9, '</x>').length, 4]);
    pack.close();
  });

  test('a blob shown by several answers is written once', () => {
    const pack = packOf();
    const blob = Buffer.alloc(1000, 'Q');
    pack.keep(
      1,
      'getArtikelDetails',
      '1',
      'compact',
      { ...open, fragment: fragment('<a>', 5, '</a>') },
      new Map([[5, blob]]),
    );
    pack.keep(
      1,
      'getArtikelDetails',
      '1',
      'indented',
      { ...open, fragment: fragment('<a>\n', 5, '\n</a>') },
      new Map([[5, blob]]),
    );
    assert.equal(
      pack.bytes,
      1000 + fragment('<a>', 5, '</a>').length + fragment('<a>\n', 5, '\n</a>').length,
    );
    assert.equal(pack.size, 2);
    assert.equal(
      text(pack.inside(1, 'getArtikelDetails', '1', 'indented', 0, never)),
      `<a>\n${'Q'.repeat(1000)}\n</a>`,
    );
    pack.close();
  });

  test('only the version kept is answered; any other one kept empties the pack', () => {
    const pack = packOf();
    pack.keep(4, 'getBereich', '1', 'compact', { ...open, fragment: fragment('<old/>') }, NONE);
    assert.equal(pack.inside(5, 'getBereich', '1', 'compact', 0, never), undefined);
    pack.keep(5, 'getBereich', '2', 'compact', { ...open, fragment: fragment('<new/>') }, NONE);
    assert.equal(pack.inside(4, 'getBereich', '1', 'compact', 0, never), undefined);
    assert.equal(pack.inside(5, 'getBereich', '1', 'compact', 0, never), undefined, 'emptied');
    assert.equal(text(pack.inside(5, 'getBereich', '2', 'compact', 0, never)), '<new/>');
    assert.equal(pack.bytes, '<new/>'.length, 'the file starts again');
    // A lower version too: a store restored from a backup.
    pack.keep(4, 'getBereich', '3', 'compact', { ...open, fragment: fragment('<older/>') }, NONE);
    assert.equal(pack.size, 1);
    assert.equal(pack.inside(5, 'getBereich', '2', 'compact', 0, never), undefined);
    assert.equal(text(pack.inside(4, 'getBereich', '3', 'compact', 0, never)), '<older/>');
    pack.close();
  });

  test('moved with the changes since its mark, it drops those answers and their tags, and keeps the rest', () => {
    const pack = packOf();
    const mark = { version: 3, token: 't3' };
    assert.equal(pack.moveTo(mark), 'emptied');
    assert.deepEqual(pack.mark, mark);
    const keep = (version: number, key: string, body: string, blob?: [number, string]) => {
      const texts = blob ? new Map([[blob[0], Buffer.from(blob[1])]]) : NONE;
      const pieces = blob ? [`<${body}>`, blob[0], `</${body}>`] : [`<${body}/>`];
      pack.keep(version, 'getAnhang', key, 'indented', { ...open, fragment: fragment(...pieces) }, texts);
    };
    keep(3, '1', 'one', [41, 'AAAA']);
    keep(3, '2', 'two', [42, 'BBBB']);
    keep(3, '3', 'three');
    const places: Array<[number, number]> = [];
    for (const key of ['1', '2'])
      pack.inside(3, 'getAnhang', key, 'indented', 0, never, undefined, (generation, slot) =>
        places.push([generation, slot]),
      );
    for (const [generation, slot] of places) pack.keepTag(generation, slot, `"tag ${slot}"`);
    assert.equal(pack.tagged, 2);
    const changes = { answers: [{ operation: 'getAnhang', key: '2' }], blobs: [42] };
    assert.equal(pack.moveTo({ version: 5, token: 't5' }, { mark, changes }), 'advanced');
    assert.equal(pack.size, 2);
    assert.equal(pack.inside(3, 'getAnhang', '1', 'indented', 0, never), undefined, 'the version moved on');
    assert.equal(text(pack.inside(5, 'getAnhang', '1', 'indented', 0, never)), '<one>AAAA</one>');
    assert.equal(text(pack.inside(5, 'getAnhang', '3', 'indented', 0, never)), '<three/>');
    assert.equal(pack.inside(5, 'getAnhang', '2', 'indented', 0, never), undefined, 'changed');
    assert.equal(
      pack.tagOf(places[0]![0], places[0]![1]),
      `"tag ${places[0]![1]}"`,
      'the unchanged one keeps its tag',
    );
    assert.equal(pack.tagOf(places[1]![0], places[1]![1]), undefined);
    assert.equal(pack.tagged, 1);
    // Blob 42 was deleted and its id given to other content: its text is read anew.
    keep(5, '2', 'two', [42, 'CCCC']);
    assert.equal(text(pack.inside(5, 'getAnhang', '2', 'indented', 0, never)), '<two>CCCC</two>');
    assert.equal(pack.moveTo({ version: 5, token: 't5' }), 'kept');
    assert.equal(pack.size, 3);
    pack.close();
  });

  test('answers requests made are kept as prepared ones are, and every move to another version drops them', () => {
    const pack = packOf();
    const mark = { version: 3, token: 't3' };
    pack.moveTo(mark);
    pack.keep(3, 'getAnhang', '1', 'compact', { ...open, fragment: fragment('<one/>') }, NONE);
    pack.keepMade(3, 'getBild made', '7 40x0 standard', 'compact', Buffer.from('<bild>QUJD</bild>'));
    pack.keepMade(3, 'getBild made', '7 40x0 standard', 'indented', Buffer.from('\n  <bild>QUJD</bild>'));
    const places: Array<[number, number]> = [];
    assert.equal(
      text(
        pack.inside(
          3,
          'getBild made',
          '7 40x0 standard',
          'indented',
          0,
          never,
          undefined,
          (generation, slot) => places.push([generation, slot]),
        ),
      ),
      '\n  <bild>QUJD</bild>',
    );
    pack.keepTag(places[0]![0], places[0]![1], '"made"');
    assert.equal(pack.size, 3);
    assert.equal(pack.tagged, 1);
    // An import that names no change of image 7: what was made of its content still goes.
    const changes = { answers: [{ operation: 'getAnhang', key: '2' }], blobs: [] };
    assert.equal(pack.moveTo({ version: 4, token: 't4' }, { mark, changes }), 'advanced');
    assert.equal(pack.size, 1);
    assert.equal(pack.tagged, 0);
    assert.equal(pack.inside(4, 'getBild made', '7 40x0 standard', 'compact', 0, never), undefined);
    assert.equal(text(pack.inside(4, 'getAnhang', '1', 'compact', 0, never)), '<one/>');
    assert.equal(pack.tagOf(places[0]![0], places[0]![1]), undefined);
    // Made again of the new version, and kept until the next move.
    pack.keepMade(4, 'getBild made', '7 40x0 standard', 'compact', Buffer.from('<bild>REVG</bild>'));
    assert.equal(
      text(pack.inside(4, 'getBild made', '7 40x0 standard', 'compact', 0, never)),
      '<bild>REVG</bild>',
    );
    assert.equal(
      pack.moveTo({ version: 5, token: 't5' }, { mark: { version: 4, token: 't4' }, changes }),
      'advanced',
    );
    assert.equal(pack.size, 1);
    pack.close();
  });

  test('answers made before the first move are dropped at the next one, even after the pack was emptied for them', () => {
    const pack = packOf();
    pack.keep(4, 'getAnhang', '1', 'compact', { ...open, fragment: fragment('<one/>') }, NONE);
    pack.keep(4, 'getAnhang', '2', 'compact', { ...open, fragment: fragment('<two/>') }, NONE);
    // An import before any filler moved the pack: a request keeps version 5, which empties it.
    pack.keepMade(5, 'getBild made', '7 40x0 standard', 'compact', Buffer.from('<bild>OLD</bild>'));
    assert.equal(pack.size, 1);
    assert.equal(pack.moveTo({ version: 5, token: 't5' }), 'kept');
    const changes = { answers: [{ operation: 'getBild', key: '7' }], blobs: [] };
    assert.equal(
      pack.moveTo({ version: 6, token: 't6' }, { mark: { version: 5, token: 't5' }, changes }),
      'advanced',
    );
    assert.equal(pack.inside(6, 'getBild made', '7 40x0 standard', 'compact', 0, never), undefined);
    assert.equal(pack.size, 0);
    // Once moved, a made answer of another version is not kept either.
    pack.keepMade(7, 'getBild made', '7 40x0 standard', 'compact', Buffer.from('<bild>NEW</bild>'));
    assert.equal(pack.size, 0);
    pack.close();
  });

  test('made answers take at most an eighth of the file, and never make the pack full for prepared ones', () => {
    const pack = packOf({ maxBytes: 8 * 1024 });
    const big = Buffer.alloc(600, 0x41);
    pack.keepMade(3, 'getBild made', 'a', 'compact', big);
    pack.keepMade(3, 'getBild made', 'b', 'compact', big);
    assert.equal(pack.size, 1, 'the second is past 1 KiB');
    pack.keep(3, 'getAnhang', '1', 'compact', { ...open, fragment: Buffer.alloc(6000, 0x42) }, NONE);
    assert.equal(pack.size, 2, 'a prepared answer still fits');
    pack.close();
  });

  test('moved without changes of its own mark, it empties; once moved, keep() of another version keeps nothing', () => {
    const pack = packOf();
    pack.keep(3, 'getAnhang', '1', 'compact', { ...open, fragment: fragment('<a/>') }, NONE);
    // Kept by a request before any move: the move to that version keeps it, and learns its token.
    assert.equal(pack.moveTo({ version: 3, token: 't3' }), 'kept');
    assert.equal(pack.size, 1);
    pack.keep(4, 'getAnhang', '2', 'compact', { ...open, fragment: fragment('<b/>') }, NONE);
    assert.equal(pack.size, 1, 'a request does not move a pack a filler moves');
    const changes = { answers: [], blobs: [] };
    assert.equal(
      pack.moveTo({ version: 4, token: 't4' }, { mark: { version: 3, token: 'other' }, changes }),
      'emptied',
    );
    assert.equal(pack.size, 0);
    pack.keep(4, 'getAnhang', '1', 'compact', { ...open, fragment: fragment('<a/>') }, NONE);
    assert.equal(pack.moveTo({ version: 5, token: undefined }), 'emptied', 'no changes');
    assert.equal(pack.mark, undefined, 'no token: no changes can be told since');
    pack.keep(5, 'getAnhang', '1', 'compact', { ...open, fragment: fragment('<a/>') }, NONE);
    assert.equal(pack.moveTo({ version: 5, token: 't5' }), 'kept');
    assert.equal(pack.size, 1);
    pack.close();
  });

  test('the file is emptied once what moves dropped is a quarter of its bound', () => {
    const pack = packOf({ maxBytes: 4000 });
    const steps = stepper(pack);
    const body = fragment(`<a>${'x'.repeat(300)}</a>`);
    const moves: string[] = [];
    for (let i = 0; i < 5; i++) {
      pack.keep(steps.version, 'getAnhang', '1', 'compact', { ...open, fragment: body }, NONE);
      moves.push(steps.next());
    }
    // 307 bytes dropped a move: past 1,000 (a quarter) at the fourth.
    assert.deepEqual(moves, ['advanced', 'advanced', 'advanced', 'emptied', 'advanced']);
    assert.equal(pack.bytes, 307);
    pack.close();
  });

  test('what moves drop is given back to the index, and a tag for a dropped slot is not kept', () => {
    // Room in the index for 18 answers (64 bytes each, keys kept as numbers), and two tags.
    const pack = packOf({ maxIndexBytes: 1200 });
    const steps = stepper(pack);
    for (let i = 0; i < 40; i++) {
      pack.keep(steps.version, 'getAnhang', '1', 'compact', { ...open, fragment: fragment('<a/>') }, NONE);
      assert.equal(pack.size, 1, `kept again at version ${steps.version}`);
      let place: [number, number] | undefined;
      pack.inside(steps.version, 'getAnhang', '1', 'compact', 0, never, undefined, (g, slot) => {
        place = [g, slot];
      });
      pack.keepTag(place![0], place![1], '"tag"');
      assert.equal(pack.tagged, 1);
      assert.equal(steps.next(), 'advanced');
      assert.equal(pack.tagged, 0, 'dropped with its answer');
      // A request that found the answer before the move tags it after: nothing finds that slot.
      pack.keepTag(place![0], place![1], '"late"');
      assert.equal(pack.tagged, 0);
    }
    pack.close();
  });

  test('the index is emptied once what moves dropped is a quarter of its slots (at least 1,024)', () => {
    const moved = (dropped: number) => {
      const pack = packOf();
      const mark = { version: 1, token: 't1' };
      pack.moveTo(mark);
      for (let key = 0; key < 2000; key++)
        pack.keep(
          1,
          'checkAnhangVorhanden',
          String(key),
          'compact',
          { ...open, fragment: fragment('<b/>') },
          NONE,
        );
      const answers = Array.from({ length: dropped }, (_, key) => ({
        operation: 'checkAnhangVorhanden',
        key: String(key),
      }));
      const move = pack.moveTo({ version: 2, token: 't2' }, { mark, changes: { answers, blobs: [] } });
      pack.close();
      return move;
    };
    assert.equal(moved(1024), 'advanced');
    assert.equal(moved(1025), 'emptied');
  });

  test('an answer outside its window is not sent; one inside it says when it expires', () => {
    const pack = packOf();
    const window = { visibleFrom: 1000, visibleUntil: 2000, fragment: fragment('<w/>') };
    pack.keep(1, 'getArtikelDetails', '9', 'compact', window, NONE);
    const expiries: number[] = [];
    const expires = (at: number) => expiries.push(at);
    assert.equal(pack.inside(1, 'getArtikelDetails', '9', 'compact', 999, expires), undefined);
    assert.equal(pack.inside(1, 'getArtikelDetails', '9', 'compact', 2001, expires), undefined);
    assert.equal(text(pack.inside(1, 'getArtikelDetails', '9', 'compact', 1500, expires)), '<w/>');
    assert.deepEqual(expiries, [2001]);
    pack.close();
  });

  test("an answer's tag is kept with its slot until the index is dropped", () => {
    const pack = packOf();
    pack.keep(1, 'getBereich', '1', 'indented', { ...open, fragment: fragment('<b/>') }, NONE);
    pack.keep(1, 'getBereich', '2', 'indented', { ...open, fragment: fragment('<c/>') }, NONE);
    const places: Array<[number, number]> = [];
    const found = (generation: number, slot: number) => places.push([generation, slot]);
    pack.inside(1, 'getBereich', '1', 'indented', 0, never, undefined, found);
    pack.inside(1, 'getBereich', '2', 'indented', 0, never, undefined, found);
    pack.inside(1, 'getBereich', '3', 'indented', 0, never, undefined, found);
    assert.equal(places.length, 2, 'a place for each answer found, none for a miss');
    const [[generation, first], [, second]] = places as [[number, number], [number, number]];
    assert.notEqual(first, second);
    assert.equal(pack.tagOf(generation, first), undefined);
    pack.keepTag(generation, first, '"one"');
    pack.keepTag(generation + 1, second, '"another generation"');
    assert.equal(pack.tagOf(generation, first), '"one"');
    assert.equal(pack.tagOf(generation + 1, first), undefined, 'asked for another generation');
    assert.equal(pack.tagOf(generation, second), undefined, 'kept for another generation');
    pack.keepTag(generation, 99, '"no such slot"');
    assert.equal(pack.tagged, 1);
    // A new version drops the index: its slots are new answers, even for the same key.
    pack.keep(2, 'getBereich', '1', 'indented', { ...open, fragment: fragment('<b2/>') }, NONE);
    pack.inside(2, 'getBereich', '1', 'indented', 0, never, undefined, found);
    const [later, again] = places[2]!;
    assert.equal(again, first, 'the same slot number');
    assert.notEqual(later, generation);
    assert.equal(pack.tagOf(later, again), undefined);
    assert.equal(pack.tagOf(generation, first), undefined);
    pack.keepTag(generation, first, '"late"');
    assert.equal(pack.tagged, 0, 'a tag of the generation before is not kept');
    pack.close();
  });

  /** Keeps getBereich 0 to count-1 of `version` and finds each: where each is (generation, slot). */
  function keptPlaces(pack: AnswerPack, version: number, count: number): Array<[number, number]> {
    const places: Array<[number, number]> = [];
    for (let i = 0; i < count; i++) {
      pack.keep(version, 'getBereich', String(i), 'indented', { ...open, fragment: fragment('<b/>') }, NONE);
      pack.inside(version, 'getBereich', String(i), 'indented', 0, never, undefined, (generation, slot) =>
        places.push([generation, slot]),
      );
    }
    return places;
  }

  test('tags have a quarter of the index bound of their own, and never keep an answer out', () => {
    // 128 bytes a tag: 1,024 of index bound hold two tags.
    const pack = packOf({ maxIndexBytes: 1024 });
    const places = keptPlaces(pack, 1, 5);
    for (const [generation, slot] of places) pack.keepTag(generation, slot, '"tag"');
    assert.equal(pack.tagged, 2);
    pack.keepTag(places[0]![0], places[0]![1], '"again"');
    assert.equal(pack.tagOf(places[0]![0], places[0]![1]), '"tag"', 'kept once, not counted twice');
    const untagged = packOf({ maxIndexBytes: 1024 });
    for (const each of [pack, untagged])
      for (let i = 5; i < 100; i++)
        each.keep(1, 'getBereich', String(i), 'indented', { ...open, fragment: fragment('<b/>') }, NONE);
    assert.equal(pack.size, untagged.size, 'as many answers as a pack without tags holds');
    assert.ok(pack.size < 100);
    // A new version drops the tags with the index, and their bytes: two fit again.
    for (const [generation, slot] of keptPlaces(pack, 2, 3)) pack.keepTag(generation, slot, '"tag"');
    assert.equal(pack.tagged, 2);
    // A longer tag counts by its length.
    const roomy = packOf({ maxIndexBytes: 4 * 1024 });
    for (const [generation, slot] of keptPlaces(roomy, 1, 1))
      roomy.keepTag(generation, slot, `"${'t'.repeat(600)}"`);
    assert.equal(roomy.tagged, 0, '1,268 bytes over a bound of 1,024');
    roomy.close();
    pack.close();
    untagged.close();
  });

  test('the file and the index stay within their bounds: past them, answers are not kept', () => {
    const small = packOf({ maxBytes: 100 });
    for (let i = 0; i < 10; i++)
      small.keep(1, 'getBereich', String(i), 'compact', { ...open, fragment: Buffer.alloc(30, 'x') }, NONE);
    assert.equal(small.size, 3);
    assert.ok(small.bytes <= 100);
    small.close();
    const narrow = packOf({ maxIndexBytes: 1000 });
    for (let i = 0; i < 100; i++)
      narrow.keep(1, 'getBereich', String(i), 'compact', { ...open, fragment: Buffer.from('<b/>') }, NONE);
    assert.ok(narrow.size > 0 && narrow.size < 50, `${narrow.size} of 100 kept`);
    narrow.close();
  });

  test('an answer whose texts do not match its references is not kept', () => {
    const pack = packOf();
    pack.keep(1, 'getAnhang', '1', 'compact', { ...open, fragment: fragment('<a>', 3, '</a>') }, NONE);
    assert.equal(pack.size, 0);
    pack.close();
  });

  test('the file leaves no trace in its folder', () => {
    const pack = packOf();
    pack.keep(1, 'getBereich', '1', 'compact', { ...open, fragment: fragment('<b/>') }, NONE);
    assert.deepEqual(readdirSync(dir), []);
    pack.close();
  });

  test('a file that cannot be read is told once and closes the pack: the store answers', () => {
    const errors: unknown[] = [];
    const pack = packOf({ onError: (error) => errors.push(error) });
    pack.keep(1, 'getBereich', '1', 'compact', { ...open, fragment: fragment('<b/>') }, NONE);
    closeSync(Reflect.get(pack, 'fd') as number);
    assert.equal(pack.inside(1, 'getBereich', '1', 'compact', 0, never), undefined);
    assert.equal(pack.inside(1, 'getBereich', '1', 'compact', 0, never), undefined);
    assert.equal(errors.length, 1);
    assert.equal((errors[0] as NodeJS.ErrnoException).code, 'EBADF');
    pack.keep(1, 'getBereich', '2', 'compact', { ...open, fragment: fragment('<b/>') }, NONE);
    assert.equal(pack.size, 0);
  });

  test('lookups of the version held are counted', () => {
    const lookups: string[] = [];
    const pack = packOf({ onLookup: (result) => lookups.push(result) });
    pack.keep(1, 'getBereich', '1', 'compact', { ...open, fragment: fragment('<b/>') }, NONE);
    pack.inside(1, 'getBereich', '1', 'compact', 0, never);
    pack.inside(1, 'getBereich', '2', 'compact', 0, never);
    pack.inside(2, 'getBereich', '1', 'compact', 0, never);
    assert.deepEqual(lookups, ['hit', 'miss']);
    pack.close();
  });
});

describe('answers kept by requests (preparedInside)', () => {
  const operation = OPERATIONS.find((op) => op.name === 'getBereich')!;
  /** A store whose one answer was read by a statement that saw `seen`. */
  const storeSeeing = (seen: number) => ({
    read: <T>(read: (snapshot: Snapshot) => Promise<T>) =>
      read({
        answer: async () => ({
          fragment: fragment('<b/>'),
          visibleFrom: null,
          visibleUntil: null,
          version: seen,
        }),
      } as unknown as Snapshot),
  });

  /** getBereich 1's inside, compact, as a request without texts at hand asks for it. */
  const bereichOne = (store: ReturnType<typeof storeSeeing>, answers: AnswersAtHand) =>
    preparedInside(store, operation, { bereichID: 1 }, 'compact', 0, never, { answers });

  test('an answer read at the version the store says it has is kept, and sent from the pack next time', async () => {
    const pack = packOf();
    const answers = { pack, version: () => 7 };
    const first = await bereichOne(storeSeeing(7), answers);
    assert.equal(text(first), '<b/>');
    assert.equal(pack.size, 1);
    const again = await bereichOne(storeSeeing(8), answers);
    assert.equal(text(again), '<b/>', 'from the pack: the store was not read');
    pack.close();
  });

  test('an answer whose statement saw another version than the store says is not kept', async () => {
    const pack = packOf();
    for (const seen of [6, 8]) {
      const parts = await bereichOne(storeSeeing(seen), { pack, version: () => 7 });
      assert.equal(text(parts), '<b/>', 'sent all the same');
    }
    assert.equal(pack.size, 0);
    pack.close();
  });
});
