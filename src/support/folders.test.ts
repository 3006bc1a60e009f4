import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { makeFolders } from './folders.ts';

test('makes every missing folder, and is content when they exist', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'scoop-folders-'));
  try {
    const deep = path.join(root, 'a', 'b', 'c');
    makeFolders(deep);
    assert.ok(statSync(deep).isDirectory());
    makeFolders(deep);
    const file = path.join(root, 'file');
    writeFileSync(file, '');
    assert.throws(() => makeFolders(path.join(file, 'x')), { code: 'ENOTDIR' });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a folder that cannot be made is refused at once (node recursive mkdir never returns for /proc/x/y)', () => {
  assert.throws(() => makeFolders('/proc/scoop-cannot/exist'), { code: 'ENOENT' });
  assert.equal(existsSync('/proc/scoop-cannot'), false);
});
