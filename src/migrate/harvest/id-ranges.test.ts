import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countIds, formatIdRanges, IdRangeError, idsFrom, parseIdRanges } from './id-ranges.ts';

test('ids and inclusive ranges, sorted and merged', () => {
  const ranges = parseIdRanges('7000-7100, 1-5000,2147483647,4990-5005,5006');
  assert.deepEqual(ranges, [
    { first: 1, last: 5006 },
    { first: 7000, last: 7100 },
    { first: 2147483647, last: 2147483647 },
  ]);
  assert.equal(countIds(ranges), 5006 + 101 + 1);
  assert.equal(formatIdRanges(ranges), '1-5006,7000-7100,2147483647');
});

test('negative ids, as xs:int allows', () => {
  assert.deepEqual(parseIdRanges('-5--3,-2147483648'), [
    { first: -2147483648, last: -2147483648 },
    { first: -5, last: -3 },
  ]);
});

test('walks lazily from any position', () => {
  const ranges = parseIdRanges('1-3,10-11,20');
  assert.deepEqual([...idsFrom(ranges)], [1, 2, 3, 10, 11, 20]);
  assert.deepEqual([...idsFrom(ranges, 3)], [10, 11, 20]);
  assert.deepEqual([...idsFrom(ranges, 4)], [11, 20]);
  assert.deepEqual([...idsFrom(ranges, 6)], []);
  // A million ids: the generator holds no list.
  const big = parseIdRanges('1-1000000');
  let n = 0;
  for (const id of idsFrom(big, 999_998)) n += id;
  assert.equal(n, 999_999 + 1_000_000);
});

test('malformed ranges are refused, naming the item', () => {
  const cases: Array<[string, RegExp]> = [
    ['', /is empty/],
    [' , ', /is empty/],
    ['1,,2', /empty item/],
    ['abc', /"abc" is not an id or a range/],
    ['1-', /"1-" is not an id or a range/],
    ['1.5', /"1.5" is not/],
    ['5-3', /"5-3" ends before it starts/],
    ['2147483648', /outside the xs:int range/],
    ['1-99999999999999999999', /outside the xs:int range/],
    ['1-2-3', /is not an id/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseIdRanges(text),
      (e: unknown) => e instanceof IdRangeError && message.test(e.message),
      text,
    );
  }
});
