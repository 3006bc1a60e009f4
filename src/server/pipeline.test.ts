import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Exchange } from './exchange.ts';
import { runStages, type Stage, type Wait } from './pipeline.ts';

/** The runner reads only `answered` of the exchange; the stages here keep their own record. */
function exchange(): Exchange {
  return { answered: false } as Exchange;
}

function record() {
  const seen: string[] = [];
  const stage = (name: string, run: (ex: Exchange) => ReturnType<Stage['run']> = () => undefined): Stage => ({
    name,
    run(ex) {
      seen.push(name);
      return run(ex);
    },
  });
  const refusals: unknown[] = [];
  const refuse = (_ex: Exchange, error: unknown) => {
    refusals.push(error);
  };
  return { seen, stage, refusals, refuse };
}

test('stages that finish at once run to the end before runStages returns', () => {
  const { seen, stage, refuse } = record();
  runStages([stage('a'), stage('b'), stage('c')], exchange(), refuse);
  assert.deepEqual(seen, ['a', 'b', 'c']);
});

test('a stage that answers stops the rest', () => {
  const { seen, stage, refuse } = record();
  runStages(
    [
      stage('a', (ex) => {
        ex.answered = true;
      }),
      stage('b'),
    ],
    exchange(),
    refuse,
  );
  assert.deepEqual(seen, ['a']);
});

test('a promise or a Wait pauses the run; it goes on when they are done', async () => {
  const { seen, stage, refuse } = record();
  let go: (() => void) | undefined;
  const wait: Wait = (resume) => {
    go = resume;
  };
  runStages([stage('a', () => Promise.resolve()), stage('b', () => wait), stage('c')], exchange(), refuse);
  assert.deepEqual(seen, ['a']);
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual(seen, ['a', 'b']);
  go!();
  assert.deepEqual(seen, ['a', 'b', 'c']);
});

test('failures are refused once: a throw, a rejection, a failed Wait, a Wait that throws', async () => {
  for (const failing of [
    () => {
      throw new Error('thrown');
    },
    () => Promise.reject(new Error('rejected')),
    (): Wait => (_resume, fail) => fail(new Error('failed')),
    (): Wait => () => {
      throw new Error('thrown by the wait');
    },
  ]) {
    const { seen, stage, refusals, refuse } = record();
    runStages([stage('a', failing), stage('b')], exchange(), refuse);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, ['a']);
    assert.equal(refusals.length, 1);
  }
});

test('a Wait that calls back twice goes on once', () => {
  const { seen, stage, refusals, refuse } = record();
  const twice: Wait = (resume, fail) => {
    resume();
    resume();
    fail(new Error('late'));
  };
  runStages([stage('a', () => twice), stage('b')], exchange(), refuse);
  assert.deepEqual(seen, ['a', 'b']);
  assert.equal(refusals.length, 0);
});
