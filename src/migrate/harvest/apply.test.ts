import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { Anhang, ArtikelDetails } from '../../contract/types.ts';
import { applyArtikel } from './apply.ts';
import { BinaryFile } from './binary-file.ts';
import { JOURNAL_FOLDER, Journal } from './journal.ts';

const root = mkdtempSync(path.join(tmpdir(), 'scoop-apply-'));
after(() => rmSync(root, { recursive: true, force: true }));

async function attachment(folder: string, id: number, text: string): Promise<Anhang> {
  const file = new BinaryFile(path.join(folder, 'files/anhaenge'));
  await file.write(Buffer.from(text));
  await file.end();
  return {
    anhangID: id,
    filename: 'a.txt',
    name: null,
    beschreibung: null,
    size: text.length,
    mimetype: 'text/plain',
    data: file,
    sort: 0,
  };
}

function article(anhaenge: Anhang[]): ArtikelDetails {
  return {
    text: 't',
    bereiche: [{ name: 'B', bereichID: 1 }],
    cityAppBereiche: [],
    anhaenge,
    links: [],
    kontakte: [],
  };
}

test('two answers that bring the same new records at once: each record is taken once, from the first', async () => {
  const folder = path.join(root, 'concurrent');
  const journal = await Journal.create(folder, {});
  const warnings: string[] = [];
  const context = { journal, warn: (m: string) => warnings.push(m) };
  const first = await attachment(folder, 7, 'first');
  const second = await attachment(folder, 7, 'second');
  const files = (a: Anhang) => (a.data instanceof BinaryFile ? [a.data] : []);
  // Both are applied before either's rename has finished.
  await Promise.all([
    applyArtikel(context, 'getArtikelDetails(artikelID 1)', 1, article([first]), files(first)),
    applyArtikel(context, 'getArtikelDetails(artikelID 2)', 2, article([second]), files(second)),
  ]);
  await journal.checkpoint(2);
  journal.close();
  const lines = (kind: string) =>
    readFileSync(path.join(folder, JOURNAL_FOLDER, `${kind}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean);
  assert.equal(lines('anhaenge').length, 1);
  assert.equal(lines('bereiche').length, 1);
  assert.equal(lines('artikel').length, 2);
  assert.equal(readFileSync(path.join(folder, 'files/anhaenge/7'), 'utf8'), 'first');
  assert.equal(journal.counts.anhaenge.records, 1);
  assert.deepEqual(warnings, []);
  assert.deepEqual(
    readdirSync(path.join(folder, 'files/anhaenge')),
    ['7'],
    "the second answer's file is discarded",
  );
});
