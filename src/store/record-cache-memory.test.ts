/**
 * The record cache's budget bounds its memory, not only the bytes of its texts: a cache
 * filled past its budget with small entries (where what an entry holds besides its bytes
 * weighs most) holds at most its budget (test/support/held-memory.ts measures it).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heldBy, moduleUrl } from '../../test/support/held-memory.ts';

const BUDGET = 4 * 1024 * 1024;

const KINDS = {
  'blob references': 's.blob(i, false)',
  'blobs with a chunk of 400 bytes': 's.blob(i)',
  'records of 300 characters': "s.get('bereiche', String(i))",
  'prepared answers of 500 bytes': "s.answer('getBereich', String(i), 'compact', 'f')",
} as const;

/** Reads 100,000 entries of one kind through a cache of BUDGET. */
function fill(read: string): string {
  return `
import { createHash } from 'node:crypto';
import { RecordCache } from ${moduleUrl('./record-cache.ts', import.meta.url)};
import { storedAnswer, storedBlob } from ${moduleUrl('./record-rows.ts', import.meta.url)};
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
kept = new RecordCache({ knownVersion: async () => 1, consistent: async (read) => ({ result: await read(snapshot), version: 1 }) }, ${BUDGET});
for (let i = 0; i < 100000; i++) await kept.read((s) => ${read});
`;
}

for (const [name, read] of Object.entries(KINDS)) {
  test(`a full cache of ${name} holds at most its budget`, () => {
    const { held } = heldBy(fill(read), 'typeof kept.read');
    assert.ok(held <= BUDGET, `holds ${held} bytes`);
    assert.ok(held >= BUDGET * 0.1, `filled: ${held} bytes`);
  });
}
