/**
 * bundle-format.md, "Files", against a hostile bundle folder: no symbolic link is
 * followed, whatever changes in the folder while it is imported; what is stored is read
 * from the handle that was checked; bundle.json is a regular file; hard links are refused
 * unless allowed; and a broken bundle.json is refused without quoting it. Each test
 * imports into a SQLite store and looks at what was published.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertRefused, bundleJson, type Files, pattern, scratch } from '../../../test/support/bundles.ts';
import type { ContentStore } from '../content-store.ts';
import { type ImportOptions, importFolder as importWith } from '../import.ts';
import type { ReadOptions } from './read-bundle.ts';

const s = scratch();

type Options = ImportOptions & ReadOptions;

/** The bytes stored for anhang `id`, or undefined when there is none. */
async function storedFile(store: ContentStore, id: number): Promise<string | undefined> {
  return store.read(async (snapshot) => {
    const blob = (await snapshot.get('anhaenge', String(id)))?.blob;
    if (!blob) return undefined;
    const parts: Uint8Array[] = [];
    for await (const chunk of blob.source.chunks()) parts.push(chunk);
    return Buffer.concat(parts).toString();
  });
}

const anhaenge = (...files: string[]) => ({
  anhaenge: files.map((file, i) => ({ anhangID: i + 1, file })),
});

/** A bundle whose first file is large (hashed in many chunks) and whose second is `files/d/x.txt`. */
function raceBundle(): { folder: string; outside: string } {
  const outside = s.dir();
  // As long as the inside file, so that only its bytes tell them apart.
  writeFileSync(path.join(outside, 'x.txt'), 'fremd');
  const folder = s.bundle(bundleJson(anhaenge('files/gross.bin', 'files/d/x.txt')), {
    'files/gross.bin': pattern(1_000_000),
    'files/d/x.txt': 'innen',
  });
  return { folder, outside };
}

/**
 * Runs `change` once the files are opened and before the second is read: on the import's
 * thread at the first hashing report (the first file is being read); for the digest worker,
 * which reports late, once they are opened and before the worker starts.
 */
function whileHashing(change: () => void, onWorker: boolean): Pick<ReadOptions, 'onHashing' | 'onOpened'> {
  if (onWorker) return { onOpened: change };
  let done = false;
  return {
    onHashing: () => {
      if (done) return;
      done = true;
      change();
    },
  };
}

const at = (n: number) => `anhaenge[${n - 1}] (anhangID ${n}).file`;

// The files' tests run with the files hashed on the import's thread and on the digest
// worker (file-digests.ts); bundle.json's below, once.
for (const [way, digestOnWorkerFrom] of [
  ["on the import's thread", undefined],
  ['on the digest worker', 1],
] as const) {
  const importFolder = (store: ContentStore, folder: string, options: Options = {}) =>
    importWith(store, folder, { ...options, digestOnWorkerFrom });

  describe(`symbolic links are never followed (${way})`, () => {
    test('a link to a file is refused, even one pointing inside the bundle', async () => {
      const folder = s.bundle(bundleJson(anhaenge('files/link.txt')), { 'files/a.txt': 'inhalt' });
      symlinkSync('a.txt', path.join(folder, 'files/link.txt'));
      await assertRefused(importFolder(s.store(), folder), at(1), /"files\/link.txt" is a symbolic link/);

      const outside = s.dir();
      writeFileSync(path.join(outside, 'geheim.txt'), 'geheim');
      const out = s.bundle(bundleJson(anhaenge('files/link.txt')), { 'files/a.txt': 'inhalt' });
      symlinkSync(path.join(outside, 'geheim.txt'), path.join(out, 'files/link.txt'));
      await assertRefused(importFolder(s.store(), out), at(1), /is a symbolic link/);
    });

    test('a folder on the path that is a link is refused, wherever it points', async () => {
      const { folder, outside } = raceBundle();
      renameSync(path.join(folder, 'files/d'), path.join(folder, 'files/d.orig'));
      symlinkSync(outside, path.join(folder, 'files/d'));
      const store = s.store();
      await assertRefused(importFolder(store, folder), at(2), /reached through the symbolic link "files\/d"/);
      assert.equal(await storedFile(store, 2), undefined);

      const inside = raceBundle().folder;
      renameSync(path.join(inside, 'files/d'), path.join(inside, 'files/d.orig'));
      symlinkSync('d.orig', path.join(inside, 'files/d'));
      await assertRefused(importFolder(s.store(), inside), at(2), /symbolic link "files\/d"/);
    });

    test('a folder swapped for a link while files are hashed: the outside file is never read', async () => {
      const { folder, outside } = raceBundle();
      const swap = () => {
        renameSync(path.join(folder, 'files/d'), path.join(folder, 'files/d.orig'));
        symlinkSync(outside, path.join(folder, 'files/d'));
      };
      const store = s.store();
      await importFolder(store, folder, whileHashing(swap, digestOnWorkerFrom !== undefined));
      assert.equal(await storedFile(store, 2), 'innen', 'stored from the handle opened before the swap');
    });

    test('past the files held open, a file opened again after such a swap is refused', async () => {
      const { folder, outside } = raceBundle();
      const swap = () => {
        renameSync(path.join(folder, 'files/d'), path.join(folder, 'files/d.orig'));
        symlinkSync(outside, path.join(folder, 'files/d'));
      };
      const store = s.store();
      const options: Options = { heldFiles: 0, ...whileHashing(swap, digestOnWorkerFrom !== undefined) };
      await assertRefused(importFolder(store, folder, options), at(2), /symbolic link/);
      assert.equal(await storedFile(store, 2), undefined);
    });
  });

  describe(`what is stored is read from the handle that was checked (${way})`, () => {
    const replace = (folder: string) => () => {
      writeFileSync(path.join(folder, 'files/neu.txt'), 'neu');
      renameSync(path.join(folder, 'files/neu.txt'), path.join(folder, 'files/d/x.txt'));
    };

    test('a file replaced after it was opened is stored as it was opened', async () => {
      const { folder } = raceBundle();
      const store = s.store();
      await importFolder(store, folder, whileHashing(replace(folder), digestOnWorkerFrom !== undefined));
      assert.equal(await storedFile(store, 2), 'innen');
    });

    test('past the files held open, a file replaced in between is refused', async () => {
      const { folder } = raceBundle();
      const store = s.store();
      const options: Options = {
        heldFiles: 0,
        ...whileHashing(replace(folder), digestOnWorkerFrom !== undefined),
      };
      await assertRefused(importFolder(store, folder, options), at(2), /changed while it was being imported/);
      assert.equal(await storedFile(store, 2), undefined);
    });

    test('files held open or opened again are stored alike', async () => {
      const files: Files = { 'a.txt': 'eins', 'b.txt': 'zwei', 'c.txt': 'drei' };
      for (const heldFiles of [0, 1, 3]) {
        const store = s.store();
        const options: Options = { heldFiles };
        await importFolder(store, s.bundle(bundleJson(anhaenge('a.txt', 'b.txt', 'c.txt')), files), options);
        assert.deepEqual(
          [await storedFile(store, 1), await storedFile(store, 2), await storedFile(store, 3)],
          ['eins', 'zwei', 'drei'],
        );
      }
    });
  });

  describe(`hard links (${way})`, () => {
    const linked = () => {
      const folder = s.bundle(bundleJson(anhaenge('files/a.txt')), { 'files/a.txt': 'inhalt' });
      linkSync(path.join(folder, 'files/a.txt'), path.join(s.dir(), 'zweiter-name.txt'));
      return folder;
    };

    test('a file with more than one hard link is refused', async () => {
      const store = s.store();
      await assertRefused(importFolder(store, linked()), at(1), /has 2 hard links.*--allow-hardlinks/);
      assert.equal(await storedFile(store, 1), undefined);
    });

    test('with allowHardlinks it is imported', async () => {
      const store = s.store();
      const options: Options = { allowHardlinks: true };
      await importFolder(store, linked(), options);
      assert.equal(await storedFile(store, 1), 'inhalt');
    });

    test('bundle.json with more than one hard link is refused unless allowed', async () => {
      const folder = s.bundle(bundleJson({ bereiche: [{ bereichID: 1 }] }));
      linkSync(path.join(folder, 'bundle.json'), path.join(s.dir(), 'bundle.json'));
      await assertRefused(importFolder(s.store(), folder), 'bundle.json', /has 2 hard links/);
      const options: Options = { allowHardlinks: true };
      await importFolder(s.store(), folder, options);
    });
  });
}

const importFolder = importWith;

describe('bundle.json', () => {
  test('a symbolic link as bundle.json is refused, wherever it points', async () => {
    const elsewhere = s.bundle(bundleJson({ bereiche: [{ bereichID: 1 }] }));
    const folder = s.dir();
    symlinkSync(path.join(elsewhere, 'bundle.json'), path.join(folder, 'bundle.json'));
    await assertRefused(importFolder(s.store(), folder), 'bundle.json', /is a symbolic link/);

    const inside = s.bundle(bundleJson({}), { 'echt.json': JSON.stringify(bundleJson({})) });
    execFileSync('ln', ['-sf', 'echt.json', path.join(inside, 'bundle.json')]);
    await assertRefused(importFolder(s.store(), inside), 'bundle.json', /is a symbolic link/);
  });

  test('a FIFO as bundle.json is refused at once, not waited on', { timeout: 10_000 }, async () => {
    const folder = s.dir();
    execFileSync('mkfifo', [path.join(folder, 'bundle.json')]);
    await assertRefused(importFolder(s.store(), folder), 'bundle.json', /is not a regular file/);
  });

  test('a folder as bundle.json is refused', async () => {
    const folder = s.dir();
    mkdirSync(path.join(folder, 'bundle.json'));
    await assertRefused(importFolder(s.store(), folder), 'bundle.json', /is not a regular file/);
  });

  test('a JSON syntax error gives line and column, and never quotes the file', async () => {
    const folder = s.bundle('{"format": "scoop-bundle/1",\n  "geheim": passwort-123}');
    await assertRefused(
      importFolder(s.store(), folder),
      'bundle.json',
      /not valid JSON: .* at line 2, column 13$/,
    );
    await assert.rejects(importFolder(s.store(), folder), (error: Error) => {
      assert.doesNotMatch(error.message, /passwort/);
      return true;
    });
  });

  test('the path of bundle.json names its folder', async () => {
    const folder = s.bundle(bundleJson({ bereiche: [{ bereichID: 1 }] }));
    const summary = await importFolder(s.store(), path.join(folder, 'bundle.json'));
    assert.equal(summary.kinds.bereiche.added, 1);
    await assertRefused(
      importFolder(s.store(), path.join(s.dir(), 'bundle.json')),
      'bundle.json',
      /is missing/,
    );
  });

  test('a file that is neither a folder nor bundle.json is refused as not a folder', async () => {
    const folder = s.bundle(bundleJson({}), { 'anders.json': '{}' });
    const file = path.join(folder, 'anders.json');
    await assertRefused(importFolder(s.store(), file), file, /is not a folder/);
  });
});
