import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOG_TARGET, type LogRound, logCostRow } from '../bench/log-cost.ts';

const round = (withLogUs: number, withoutLogUs: number, errors = 0): LogRound => ({
  withLogUs,
  withoutLogUs,
  withLogRps: 1e6 / withLogUs,
  withoutLogRps: 1e6 / withoutLogUs,
  errors,
});

test('the figure is the median of the rounds’ own ratios of CPU a request, without the log over with it', () => {
  // The rounds' ratios: 0.9, 0.95, 0.5 (a round the machine disturbed for one server only).
  const row = logCostRow('getBereich-get', [round(40, 36), round(40, 38), round(80, 40)]);
  assert.equal(row.ratio, 0.9);
  assert.equal(row.lowest, 0.5);
  assert.equal(row.highest, 0.95);
  assert.equal(row.withLogUs, 40);
  assert.equal(row.withoutLogUs, 38);
  assert.equal(LOG_TARGET, 0.9);
  assert.equal(row.pass, true, 'a ratio at the target passes');
});

test('a log costing more than a tenth of the rate fails, and so does a round with errors', () => {
  assert.equal(logCostRow('a', [round(40, 35), round(40, 35.6)]).pass, false);
  assert.equal(logCostRow('b', [round(40, 39), round(40, 39)]).pass, true);
  assert.equal(logCostRow('c', [round(40, 39), round(40, 39, 1)]).pass, false);
  assert.throws(() => logCostRow('d', []));
});
