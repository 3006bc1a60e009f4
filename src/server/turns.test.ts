import assert from 'node:assert/strict';
import { test } from 'node:test';
import { turns } from './turns.ts';

/** A clock the test moves: each piece of work "takes" `cost` ms. */
function clock() {
  let ms = 0;
  return {
    now: () => ms,
    advance(by: number) {
      ms += by;
    },
  };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('requests run at once while the turn has budget left', () => {
  const time = clock();
  const turn = turns(1, time.now);
  const ran: number[] = [];
  for (let i = 0; i < 5; i++) {
    assert.equal(turn.runsNow(), true);
    ran.push(i);
    time.advance(0.1);
  }
  assert.deepEqual(ran, [0, 1, 2, 3, 4]);
  assert.equal(turn.waiting, 0);
});

test('once the budget is spent, requests wait and are worked off in arrival order in later turns', async () => {
  const time = clock();
  const turn = turns(1, time.now);
  const ran: string[] = [];
  const arrive = (name: string) => {
    const work = () => {
      ran.push(name);
      time.advance(0.4);
    };
    if (turn.runsNow()) work();
    else turn.later(work);
  };
  for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) arrive(name);
  // a, b and c fit in the first millisecond; the rest wait.
  assert.deepEqual(ran, ['a', 'b', 'c']);
  assert.equal(turn.waiting, 4);
  await nextTurn();
  // The next turn worked off d, e and f (one budget); a new request does not overtake g.
  assert.deepEqual(ran, ['a', 'b', 'c', 'd', 'e', 'f']);
  arrive('h');
  assert.equal(turn.waiting, 2);
  await nextTurn();
  await nextTurn();
  await nextTurn();
  await nextTurn();
  assert.deepEqual(ran, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
  assert.equal(turn.waiting, 0);
  // Afterwards a fresh turn runs requests at once again.
  await nextTurn();
  assert.equal(turn.runsNow(), true);
});

test('each later turn works off one budget of the queue, then yields', async () => {
  const time = clock();
  const turn = turns(2, time.now);
  const ran: number[] = [];
  time.advance(0);
  assert.equal(turn.runsNow(), true);
  time.advance(2);
  assert.equal(turn.runsNow(), false);
  for (let i = 0; i < 10; i++)
    turn.later(() => {
      ran.push(i);
      time.advance(1);
    });
  await nextTurn();
  assert.equal(ran.length, 2);
  await nextTurn();
  assert.equal(ran.length, 4);
});

test('a budget of 0 turns the bound off', () => {
  const time = clock();
  const turn = turns(0, time.now);
  for (let i = 0; i < 100; i++) {
    assert.equal(turn.runsNow(), true);
    time.advance(10);
  }
});
