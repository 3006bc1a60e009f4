/**
 * bundle-file.ts's mechanism on its own: what the checks after opening catch that the
 * checks before it cannot see, and reading an opened file from its start every time.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { assertRefused, scratch } from '../../../test/support/bundles.ts';
import { descriptorChunks, openInside, type Place } from './bundle-file.ts';

const s = scratch();
const RULES = { allowHardlinks: false };

function place(root: string, relative: string): Place {
  return { root, relative, where: 'x.file', label: `${JSON.stringify(relative)} ` };
}

/** openInside is synchronous: its refusal as a rejected promise, for assertRefused. */
const opening = (at: Place) => Promise.resolve().then(() => openInside(at, RULES));

test('a link on the path that no check before opening could see is caught once the file is open', async () => {
  // A folder on the path swapped for a link just before the open cannot be seen by any
  // check made beforehand; only the opened descriptor's name tells. A root that is itself
  // a link reproduces that state deterministically: nothing below it is a link, yet the
  // opened file is not at the path asked for.
  const real = s.bundle({}, { 'files/a.txt': 'inhalt' });
  const link = path.join(s.dir(), 'link');
  symlinkSync(real, link);
  await assertRefused(
    opening(place(link, 'files/a.txt')),
    'x.file',
    /was moved, or a folder on its path replaced/,
  );

  const opened = openInside(place(realpathSync(real), 'files/a.txt'), RULES);
  assert.equal(opened.size, 6);
  closeSync(opened.fd);
});

test(
  'a FIFO is refused without blocking; a socket or device is not a regular file either',
  { timeout: 10_000 },
  async () => {
    const root = realpathSync(s.dir());
    execFileSync('mkfifo', [path.join(root, 'fifo')]);
    await assertRefused(opening(place(root, 'fifo')), 'x.file', /is not a regular file/);
    await assertRefused(opening(place('/', 'dev/null')), 'x.file', /is not a regular file/);
  },
);

test('an open file is read from its start each time, whatever its name holds meanwhile', async () => {
  const root = realpathSync(s.dir());
  writeFileSync(path.join(root, 'a.txt'), 'erste Fassung');
  const { fd, size } = openInside(place(root, 'a.txt'), RULES);
  try {
    writeFileSync(path.join(root, 'b.txt'), 'zweite');
    execFileSync('mv', [path.join(root, 'b.txt'), path.join(root, 'a.txt')]);
    for (let round = 0; round < 2; round++) {
      const parts: Buffer[] = [];
      for (const chunk of descriptorChunks(fd, 4, size)) parts.push(chunk);
      assert.equal(Buffer.concat(parts).toString(), 'erste Fassung');
      assert.deepEqual(
        parts.map((p) => p.length),
        [4, 4, 4, 1],
      );
    }
  } finally {
    closeSync(fd);
  }
});

test('a file is read in buffers no larger than what is left of it, and to its end', () => {
  const root = realpathSync(s.dir());
  const read = (content: string, chunkBytes: number, size = content.length) => {
    writeFileSync(path.join(root, 'c.txt'), content);
    const { fd } = openInside(place(root, 'c.txt'), RULES);
    try {
      return [...descriptorChunks(fd, chunkBytes, size)].map((chunk) => chunk.toString());
    } finally {
      closeSync(fd);
    }
  };
  assert.deepEqual(read('klein', 1024), ['klein'], 'one read for a file smaller than a chunk');
  assert.deepEqual(read('achtzehn', 4), ['acht', 'zehn'], 'a whole number of chunks');
  assert.deepEqual(read('', 4), []);
  // A file that grew since its size was taken is read to its end all the same.
  assert.deepEqual(read('gewachsen', 4, 3), ['gewa', 'chse', 'n']);
});
