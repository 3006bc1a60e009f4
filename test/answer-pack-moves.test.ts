/**
 * The answer pack moved from version to version by its filler (prepare/pack-filler.ts) on a
 * real store, SQLite and PostgreSQL: after imports that change, remove and sweep content,
 * every answer the pack holds is the store's, byte for byte, and the answers no import
 * changed were kept rather than read again.
 */
import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import { OPERATIONS } from '../src/contract/operations.ts';
import { AnswerPack, type PackMove } from '../src/prepare/answer-pack.ts';
import { PackFiller } from '../src/prepare/pack-filler.ts';
import { preparedInside } from '../src/prepare/prepared-answer.ts';
import type { BodyPart } from '../src/xml/writer.ts';
import { bundleJson, importFolder, pattern, scratch } from './support/bundles.ts';
import { DATABASES } from './support/databases.ts';

const s = scratch();
const never = () => undefined;
const getAnhang = OPERATIONS.find((op) => op.name === 'getAnhang')!;

function text(parts: readonly BodyPart[] | undefined): string | undefined {
  return parts && Buffer.concat(parts.map((part) => part as Buffer)).toString('latin1');
}

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    assert.ok(Date.now() < deadline, 'not done within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

for (const db of DATABASES) {
  describe(`the answer pack across imports, ${db.name}`, () => {
    const packs: AnswerPack[] = [];
    after(() => {
      for (const pack of packs) pack.close();
    });

    db.test('a blob swept and its id given to new content: the pack sends the new content', async () => {
      const { store } = await s.open(db);
      const pack = AnswerPack.open({ dir: s.dir(), maxBytes: 1 << 20 });
      packs.push(pack);
      const moves: PackMove[] = [];
      const filler = new PackFiller({
        store,
        pack,
        pageSize: 3,
        everyMs: 5,
        onMoved: (_, move) => moves.push(move),
      });
      const options = (now: number) => ({ now: () => now, blobGraceMs: 1000 });
      const attachment = (id: number, bytes: Buffer) =>
        s.bundle(bundleJson({ mode: 'upsert', anhaenge: [{ anhangID: id, file: 'a.bin' }] }), {
          'a.bin': bytes,
        });
      const filled = async () => {
        const version = await store.contentVersion();
        await until(() => filler.filledVersion === version);
      };
      /** Each attachment's answer from the pack is the store's own. */
      const sameAsStore = async (ids: readonly number[]) => {
        const version = await store.contentVersion();
        for (const id of ids) {
          const fromStore = await preparedInside(store, getAnhang, { anhangID: id }, 'compact', 0, never);
          assert.ok(fromStore, `the store has attachment ${id}`);
          assert.equal(
            text(pack.inside(version, 'getAnhang', String(id), 'compact', 0, never)),
            text(fromStore),
            `attachment ${id}`,
          );
        }
      };
      try {
        await importFolder(store, attachment(1, pattern(300, 1)), options(10_000));
        await importFolder(store, attachment(3, pattern(300, 3)), options(10_000));
        filler.start();
        await filled();
        await importFolder(
          store,
          s.bundle(bundleJson({ mode: 'upsert', loeschen: { anhaenge: [3] } })),
          options(20_000),
        );
        await filled();
        // Changes nothing but sweeps attachment 3's blob, the newest: SQLite may give its id again.
        await importFolder(store, s.bundle(bundleJson({ mode: 'upsert' })), options(40_000));
        await filled();
        await importFolder(store, attachment(2, pattern(300, 2)), options(50_000));
        await filled();
        await sameAsStore([1, 2]);
        assert.ok(moves.length >= 3 && moves.every((move) => move === 'advanced'), moves.join(', '));
      } finally {
        await filler.stop();
      }
    });
  });
}
