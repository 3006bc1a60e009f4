/**
 * A bundle's files hashed on the digest worker (file-digests.ts) while the articles and
 * subscriptions are checked: the same bundle as when the import's thread hashes them, a
 * mistake in bundle.json found meanwhile reported as before with every file closed, and a
 * refusal of a file reported as the import's thread would. (The files' rules themselves
 * run both ways in read-bundle-files.test.ts and media-type.test.ts.)
 */
import assert from 'node:assert/strict';
import { readdirSync, readlinkSync, renameSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { assertRefused, bundleJson, type Files, pattern, scratch } from '../../../test/support/bundles.ts';
import type { Bundle } from './bundle.ts';
import { DIGEST_WORKER_MIN_FILES, digestOnWorker } from './file-digests.ts';
import { type HashProgress, openFiles } from './hash-files.ts';
import { closeBundle, type ReadOptions, readBundle } from './read-bundle.ts';

const s = scratch();

/** Each test's longest wait: a worker that never answers fails the test instead of hanging the run. */
const WITHIN = { timeout: 60_000 };

/** The import's thread, and the worker (from one file on). */
const WAYS = [Number.POSITIVE_INFINITY, 1];

/**
 * The process's descriptors open on this test's files. (Not all of them: a worker run from
 * source loads the TypeScript loader's modules, and one stopped halfway may leave a handle
 * on one of those; the built worker loads none.)
 */
const openDescriptors = () =>
  readdirSync('/proc/self/fd').filter((n) => {
    try {
      return readlinkSync(`/proc/self/fd/${n}`).startsWith(s.root);
    } catch {
      return false;
    }
  }).length;

/** Attachments and images over many files, one of them large (hashed in many chunks), some shared. */
function manyFiles(extra: Record<string, unknown> = {}): string {
  const files: Record<string, Buffer> = { 'files/gross.bin': pattern(6_000_000) };
  for (let i = 0; i < 300; i++) files[`files/f${i}.bin`] = pattern(1000 + i, i + 2);
  const anhaenge = Object.keys(files).map((file, i) => ({ anhangID: i + 1, file }));
  const bilder = [
    { bildID: 1, file: 'files/f7.bin' },
    { bildID: 2, file: 'files/../files/gross.bin' },
  ];
  return s.bundle(bundleJson({ anhaenge, bilder, ...extra }), files as Files);
}

/** What a read bundle holds of its files, by record. */
function filesOf(bundle: Bundle) {
  return [...bundle.records].flatMap(([kind, list]) =>
    list.flatMap((r) =>
      r.file ? [{ kind, id: r.id, name: r.file.name, size: r.file.size, sha256: r.file.sha256 }] : [],
    ),
  );
}

async function read(folder: string, options: ReadOptions) {
  const seen: HashProgress[] = [];
  const bundle = await readBundle(folder, { ...options, onHashing: (p) => seen.push(p) });
  await closeBundle(bundle);
  return { files: filesOf(bundle), warnings: bundle.warnings, last: seen.at(-1), seen };
}

test("many files are hashed on the worker into the same bundle as on the import's thread", async () => {
  assert.ok(DIGEST_WORKER_MIN_FILES <= 302, 'the bundle below is of the worker by default');
  const folder = manyFiles();
  const before = openDescriptors();
  const here = await read(folder, { digestOnWorkerFrom: Number.POSITIVE_INFINITY });
  const there = await read(folder, {});
  assert.deepEqual(there.files, here.files);
  assert.equal(here.files.length, 303);
  assert.deepEqual(there.warnings, here.warnings);
  assert.deepEqual(there.last, {
    files: 301,
    filesTotal: 301,
    bytes: here.last!.bytesTotal,
    bytesTotal: here.last!.bytesTotal,
  });
  assert.deepEqual(there.last, here.last);
  for (const [i, p] of there.seen.entries()) if (i > 0) assert.ok(p.bytes >= there.seen[i - 1]!.bytes);
  // The import's thread reports every chunk and file (324 here); the worker at most every 20 ms.
  assert.ok(here.seen.length >= 324);
  assert.ok(there.seen.length < here.seen.length / 2, `${there.seen.length} reports: hashed on the worker`);
  assert.equal(openDescriptors(), before, 'every file closed with the bundle');
});

test(
  'a mistake in the articles, found while the worker hashes, is reported and every file closed',
  WITHIN,
  async () => {
    const before = openDescriptors();
    for (let round = 0; round < 3; round++) {
      const folder = manyFiles({ artikel: [{ artikelID: 7 }, { artikelID: 'acht' }] });
      await assertRefused(readBundle(folder), 'artikel[1].artikelID');
      assert.equal(openDescriptors(), before, 'no descriptor left open');
    }
  },
);

test("a refusal of a file on the worker is the one the import's thread gives, every file closed", async () => {
  const before = openDescriptors();
  const png = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(100, 7)]);
  const files: Record<string, Buffer> = { 'bild.png': png };
  for (let i = 0; i < 300; i++) files[`f${i}.txt`] = Buffer.from(`datei ${i}`);
  const folder = s.bundle(
    bundleJson({
      anhaenge: Object.keys(files).map((file, i) => ({ anhangID: i + 1, file })),
      bilder: [{ bildID: 1, file: 'bild.png', mimetype: 'image/jpeg' }],
    }),
    files as Files,
  );
  const messages: string[] = [];
  for (const digestOnWorkerFrom of WAYS) {
    await assert.rejects(readBundle(folder, { digestOnWorkerFrom }), (error: Error) => {
      messages.push(error.message);
      return error.name === 'BundleError';
    });
    assert.equal(openDescriptors(), before);
  }
  assert.equal(messages[1], messages[0]);
  assert.match(messages[0]!, /^bilder\[0\] \(bildID 1\)\.mimetype: "image\/jpeg" contradicts/);
});

/** manyFiles' folder with a bundle.json of its own: `first` attachments, then one for each small file. */
function namingFiles(first: readonly string[], extra: Record<string, unknown> = {}): string {
  const folder = manyFiles();
  const files = [...first, ...Array.from({ length: 300 }, (_, i) => `files/f${i}.bin`)];
  const anhaenge = files.map((file, i) => ({ anhangID: i + 1, file }));
  writeFileSync(path.join(folder, 'bundle.json'), JSON.stringify(bundleJson({ anhaenge, ...extra })));
  return folder;
}

test(
  'a mistake in bundle.json comes before a file that cannot be opened, both ways, every file closed',
  WITHIN,
  async () => {
    const before = openDescriptors();
    const twice = { artikel: [{ artikelID: 7 }, { artikelID: 7 }] };
    const both = namingFiles(['fehlt.bin'], twice);
    const missing = namingFiles(['files/f1.bin', 'fehlt.bin']);
    for (const digestOnWorkerFrom of WAYS) {
      await assertRefused(
        readBundle(both, { digestOnWorkerFrom }),
        'artikel[1] (artikelID 7)',
        /duplicate id/,
      );
      // The missing file alone, past a file already opened.
      await assertRefused(
        readBundle(missing, { digestOnWorkerFrom }),
        'anhaenge[1] (anhangID 2).file',
        /does not exist/,
      );
      assert.equal(openDescriptors(), before, 'no descriptor left open');
    }
  },
);

test(
  'what the hook for opened files throws is what reading the bundle throws, every file closed',
  WITHIN,
  async () => {
    const before = openDescriptors();
    const folder = manyFiles();
    for (const digestOnWorkerFrom of WAYS) {
      const thrown = new Error('Haken kaputt');
      const onOpened = () => {
        throw thrown;
      };
      await assert.rejects(readBundle(folder, { digestOnWorkerFrom, onOpened }), (error) => error === thrown);
      assert.equal(openDescriptors(), before);
    }
  },
);

test(
  'what the progress callback throws is what reading the bundle throws, both ways, every file closed',
  WITHIN,
  async () => {
    const before = openDescriptors();
    const folder = manyFiles();
    for (const digestOnWorkerFrom of WAYS) {
      const thrown = new Error('Anzeige kaputt');
      await assert.rejects(
        readBundle(folder, {
          digestOnWorkerFrom,
          onHashing: () => {
            throw thrown;
          },
        }),
        (error) => error === thrown,
      );
      assert.equal(openDescriptors(), before);
    }
  },
);

test(
  'past the files held open, the worker opens a file again by the rules: a folder swapped for a link after opening is refused',
  WITHIN,
  async () => {
    const outside = s.dir();
    writeFileSync(path.join(outside, 'x.bin'), 'fremd');
    const folder = namingFiles(['files/x.bin']);
    writeFileSync(path.join(folder, 'files', 'x.bin'), 'innen');
    const swap = () => {
      renameSync(path.join(folder, 'files'), path.join(folder, 'files.orig'));
      symlinkSync(outside, path.join(folder, 'files'));
    };
    const before = openDescriptors();
    await assertRefused(
      readBundle(folder, { heldFiles: 0, digestOnWorkerFrom: 1, onOpened: swap }),
      'anhaenge[0] (anhangID 1).file',
      /symbolic link "files"/,
    );
    assert.equal(openDescriptors(), before);
  },
);

test('once the worker is being stopped, progress it sent before is not reported', WITHIN, async () => {
  const folder = s.dir();
  // 256 MB without writing them (a sparse file): hashed long enough to report many times.
  writeFileSync(path.join(folder, 'gross.bin'), '');
  truncateSync(path.join(folder, 'gross.bin'), 256 * 1024 * 1024);
  const opened = openFiles(folder, [{ name: 'gross.bin', relative: 'gross.bin', where: 'anhaenge[0]' }], {
    rules: { allowHardlinks: false },
    held: 1,
  });
  let stopping = false;
  let late = 0;
  let first: () => void = () => undefined;
  const reported = new Promise<void>((resolve) => {
    first = resolve;
  });
  const digests = digestOnWorker(
    opened,
    {
      onHashing: () => {
        if (stopping) late++;
        first();
      },
    },
    new Map(),
  );
  await reported;
  // This thread busy while the worker goes on reporting: its messages wait in the queue.
  const until = performance.now() + 100;
  while (performance.now() < until);
  stopping = true;
  await digests.stop();
  assert.equal(late, 0);
});
