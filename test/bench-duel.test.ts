import assert from 'node:assert/strict';
import { test } from 'node:test';
import { duelRow, renderDuel } from '../bench/duel.ts';

const sample = (oursUs: number, baselineUs: number, errors = 0) => ({
  oursUs,
  baselineUs,
  oursRps: 1e6 / oursUs,
  baselineRps: 1e6 / baselineUs,
  errors,
});

test("a duel's ratio is the median of the rounds' own ratios, with their spread", () => {
  // Round ratios 1.5, 1.2, 1.1: the median of them (1.2), not the ratio of the medians (220/200).
  const row = duelRow('uniform', [sample(100, 150), sample(200, 240, 1), sample(300, 330)]);
  assert.equal(row.ratio, 1.2);
  assert.ok(Math.abs(row.lowest - 1.1) < 1e-12);
  assert.equal(row.highest, 1.5);
  assert.equal(row.oursUs, 200);
  assert.equal(row.baselineUs, 240);
  assert.equal(row.errors, 1);
});

test('an even number of rounds takes the mean of the middle two', () => {
  const row = duelRow('zipf', [sample(100, 100), sample(100, 120), sample(100, 90), sample(100, 110)]);
  assert.ok(Math.abs(row.ratio - 1.05) < 1e-12);
});

test('a duel without rounds is refused, not reported as NaN', () => {
  assert.throws(() => duelRow('uniform', []), /at least one round/);
});

test('the table names the baseline and shows each order', () => {
  const text = renderDuel({
    baseline: 'main~3',
    baselineCommit: 'abc',
    nodeFlags: { ours: ['--max-semi-space-size=8'], baseline: [] },
    answerCache: 'off',
    rounds: 1,
    seconds: 5,
    rows: [duelRow('uniform', [sample(100, 110)])],
  });
  assert.match(text, /main~3 \/ ours/);
  assert.match(text, /uniform .*1\.100/);
  assert.match(text, /node flags: ours --max-semi-space-size=8, main~3 none/);
});
