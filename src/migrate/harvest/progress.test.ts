import assert from 'node:assert/strict';
import { test } from 'node:test';
import { emptyCounts } from './journal.ts';
import {
  formatCounts,
  jsonProgress,
  type ProgressSnapshot,
  progressLine,
  terminalProgress,
} from './progress.ts';

const SNAPSHOT: ProgressSnapshot = {
  operation: 'getArtikelDetails',
  done: 1500,
  total: 20000,
  found: 1400,
  unknown: 90,
  failed: 10,
  bytes: 15 * 1024 * 1024,
  rate: 250,
  elapsedSeconds: 6,
};

test('the terminal line: requests done/total, found, unknown, failed, bytes, rate, time left', () => {
  assert.equal(
    progressLine(SNAPSHOT),
    '  getArtikelDetails 1500/20000 · found 1400 · unknown 90 · failed 10 · 15.0 MB · 250/s · 0:06, 1:14 left',
  );
  assert.match(progressLine({ ...SNAPSHOT, rate: undefined }), / · –\/s · 0:06$/);
});

test('the terminal is redrawn at most every 200 ms; a warning gets a line of its own', () => {
  let now = 0;
  const out: string[] = [];
  const display = terminalProgress({ write: (t) => out.push(t) }, () => now);
  display.show(SNAPSHOT);
  now = 100;
  display.show({ ...SNAPSHOT, done: 1501 });
  assert.equal(out.length, 1);
  display.warn('getBereich(bereichID 7): left out: …');
  assert.equal(out[1], '\r\u001b[Kscoop harvest: warning: getBereich(bereichID 7): left out: …\n');
  assert.match(out[2]!, /1501\/20000/, 'the line comes back under the warning');
  display.finish();
  assert.equal(out[out.length - 1], '\n');
});

test('JSON lines at most every second, and the last one at the end', () => {
  let now = 0;
  const out: string[] = [];
  const display = jsonProgress({ write: (t) => out.push(t) }, () => now);
  display.show(SNAPSHOT);
  now = 500;
  display.show({ ...SNAPSHOT, done: 20000 });
  display.finish();
  const events = out.map((line) => JSON.parse(line));
  assert.deepEqual(
    events.map((e) => [e.event, e.done, e.secondsLeft]),
    [
      ['progress', 1500, 74],
      ['progress', 20000, 0],
    ],
  );
});

test('the summary has a row per record kind', () => {
  const counts = emptyCounts();
  counts.anhaenge.records = 4;
  counts.anhaenge.bytes = 2 * 1024 * 1024;
  const table = formatCounts(counts).split('\n');
  assert.equal(table.length, 8);
  assert.match(table[3]!, /^ {2}anhaenge +4 .* 2\.0 MB$/);
});
