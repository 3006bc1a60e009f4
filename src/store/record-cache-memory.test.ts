/**
 * The record cache's budget bounds its memory, not only the bytes of its texts: a cache
 * filled past its budget with small entries (where what an entry holds besides its bytes
 * weighs most) holds at most its budget, measured after full collections in a process of
 * its own (`--expose-gc`).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const BUDGET = 4 * 1024 * 1024;

const KINDS = {
  'blob references': 's.blob(i, false)',
  'blobs with a chunk of 400 bytes': 's.blob(i)',
  'records of 300 characters': "s.get('bereiche', String(i))",
  'prepared answers of 500 bytes': "s.answer('getBereich', String(i), 'compact', 'f')",
} as const;

/**
 * Reads 100,000 entries of one kind through a cache of BUDGET; prints what it holds: the
 * memory in use with the cache full, less that once the cache is dropped.
 */
function script(read: string): string {
  const module = (name: string) =>
    JSON.stringify(pathToFileURL(new URL(name, import.meta.url).pathname).href);
  return `
import { createHash } from 'node:crypto';
import { RecordCache } from ${module('./record-cache.ts')};
import { storedAnswer, storedBlob } from ${module('./record-rows.ts')};
const held = () => { gc(); gc(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
const snapshot = {
  get: async (kind, id) => ({ doc: '{"name":"' + 'x'.repeat(280) + id + '"}' }),
  getMany: async () => new Map(),
  all: async () => [],
  blob: async (id, readChunk = true) => storedBlob(
    { id, size: 300, chunkCount: 1, encoding: 'base64', sha256: createHash('sha256').update(String(id)).digest('hex') },
    async () => undefined,
    readChunk ? Buffer.alloc(400, 65) : undefined,
  ),
  answer: async () => storedAnswer({ fragment: Buffer.alloc(500, 60), visible_from: null, visible_until: null }),
};
let cache = new RecordCache({ knownVersion: async () => 1, consistent: async (read) => ({ result: await read(snapshot), version: 1 }) }, ${BUDGET});
for (let i = 0; i < 100000; i++) await cache.read((s) => ${read});
const full = held();
// Read after the measure, so that the cache is alive during it (V8 may drop a binding no
// longer read across an await).
if (cache.read === undefined) throw new Error('no cache');
cache = undefined;
process.stdout.write(JSON.stringify({ held: full - held() }));
`;
}

for (const [name, read] of Object.entries(KINDS)) {
  test(`a full cache of ${name} holds at most its budget`, () => {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script(read)],
      { encoding: 'utf8' },
    );
    const { held } = JSON.parse(out) as { held: number };
    assert.ok(held <= BUDGET, `holds ${held} bytes`);
    assert.ok(held >= BUDGET * 0.1, `filled: ${held} bytes`);
  });
}
