import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { clip, diffLines, unifiedDiff } from './diff.ts';

/** Applies hunks' lines to rebuild both sides, to check a diff against its inputs. */
function sides(a: readonly string[], b: readonly string[]): { left: string[]; right: string[] } {
  const hunks = diffLines(a, b, 1_000_000);
  const left: string[] = [];
  const right: string[] = [];
  for (const hunk of hunks)
    for (const line of hunk.lines) {
      if (line.kind !== '+') left.push(line.text);
      if (line.kind !== '-') right.push(line.text);
    }
  return { left, right };
}

test('equal inputs have no hunks', () => {
  assert.deepEqual(diffLines(['a', 'b'], ['a', 'b']), []);
});

test('one changed line in the middle is one hunk with its context', () => {
  const a = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
  const b = ['1', '2', '3', '4', 'X', '6', '7', '8', '9'];
  const hunks = diffLines(a, b);
  assert.equal(hunks.length, 1);
  assert.equal(
    unifiedDiff(hunks, 100),
    ['--- baseline', '+++ candidate', '@@ -2,7 +2,7 @@', ' 2', ' 3', ' 4', '-5', '+X', ' 6', ' 7', ' 8'].join(
      '\n',
    ),
  );
});

test('a diff rebuilds both sides (any inputs)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 40 }),
      fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { maxLength: 40 }),
      (a, b) => {
        const { left, right } = sides(a, b);
        if (a.join('\n') === b.join('\n')) return left.length === 0 && right.length === 0;
        return left.join('\n') === a.join('\n') && right.join('\n') === b.join('\n');
      },
    ),
  );
});

test('the shown diff is bounded and says what it left out', () => {
  const a = Array.from({ length: 100 }, (_, i) => `line ${i}`);
  const b = a.map((line) => `${line}!`);
  const text = unifiedDiff(diffLines(a, b), 10);
  assert.equal(text.split('\n').length, 13);
  assert.match(text, /\[191 more diff lines not shown\]$/);
});

test('long lines are clipped around their first difference', () => {
  const base = 'A'.repeat(5000);
  const changed = `${base.slice(0, 3000)}B${base.slice(3001)}`;
  const [hunk] = diffLines([base], [changed]);
  const [left, right] = hunk!.lines;
  assert.ok(left!.text.length < 320 && right!.text.length < 320);
  assert.ok(right!.text.includes('B'));
  assert.match(right!.text, /^\[… 2940 characters\] /);
  assert.equal(clip('short', 0), 'short');
});
