import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Answer, BodyCollector } from './answer.ts';
import { judge } from './judge.ts';

function answer(status: number, body: string, type = 'text/xml; charset=utf-8', keep = 1 << 20): Answer {
  const collector = new BodyCollector(keep);
  collector.add(Buffer.from(body));
  return collector.answer(status, 'X', type);
}

const INDENTED = '<?xml version="1.0" encoding="utf-8"?>\n<r xmlns="urn:x">\n  <a>1</a>\n</r>';
const COMPACT = '<?xml version="1.0" encoding="utf-8"?><r xmlns="urn:x"><a>1</a></r>';

test('indentation is no difference; a value is', () => {
  assert.equal(judge(answer(200, INDENTED), answer(200, COMPACT)).outcome, 'same');
  const verdict = judge(answer(200, INDENTED), answer(200, COMPACT.replace('>1<', '>2<')));
  assert.equal(verdict.outcome, 'different');
  assert.deepEqual(
    verdict.hunks![0]!.lines.filter((l) => l.kind !== ' '),
    [
      { kind: '-', text: '  <a>1</a>' },
      { kind: '+', text: '  <a>2</a>' },
    ],
  );
});

test('two refusals are "both refused" whatever they say; one is a difference', () => {
  const fault =
    '<soap:Envelope xmlns:soap="s"><soap:Body><soap:Fault>Unknown</soap:Fault></soap:Body></soap:Envelope>';
  assert.equal(judge(answer(500, fault), answer(404, '<error/>')).outcome, 'both refused');
  assert.equal(judge(answer(500, '<html>oops</html>', 'text/html'), answer(400, '')).outcome, 'both refused');
  assert.equal(judge(answer(500, fault), answer(200, COMPACT)).outcome, 'different');
});

test('the status and the media type are part of the answer', () => {
  assert.equal(
    judge(answer(200, COMPACT), answer(200, COMPACT, 'application/soap+xml')).outcome,
    'different',
  );
  assert.equal(
    judge(answer(200, COMPACT, 'text/xml; charset=utf-8'), answer(200, COMPACT, 'TEXT/XML')).outcome,
    'same',
  );
});

test('an answer that is not XML is compared as text', () => {
  assert.equal(judge(answer(200, 'plain', 'text/plain'), answer(200, 'plain', 'text/plain')).outcome, 'same');
  const verdict = judge(answer(200, COMPACT), answer(200, '<html><body>Login', 'text/xml'));
  assert.equal(verdict.outcome, 'different');
  assert.ok(verdict.hunks!.some((h) => h.lines.some((l) => l.text === '[not XML]')));
});

test('answers too large to keep: the same bytes are the same, other bytes cannot be judged', () => {
  const big = `<r>${'x'.repeat(100)}</r>`;
  assert.equal(judge(answer(200, big, 'text/xml', 10), answer(200, big, 'text/xml', 10)).outcome, 'same');
  const verdict = judge(answer(200, big, 'text/xml', 10), answer(200, big.replace('x', 'y'), 'text/xml', 10));
  assert.equal(verdict.outcome, 'failed');
  assert.match(verdict.reason!, /too large to compare/);
  // Kept on one side, hashed on the other: still compared by bytes.
  assert.equal(judge(answer(200, big, 'text/xml', 10), answer(200, big)).outcome, 'same');
});

test('no answer on either side is a failure naming the side', () => {
  const verdict = judge({ kind: 'failed', reason: 'connection refused' }, answer(200, COMPACT));
  assert.deepEqual(verdict, { outcome: 'failed', reason: 'baseline: connection refused' });
});
