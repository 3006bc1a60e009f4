import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fake } from '../../test/support/fake-http.ts';
import { type Observation, requestId } from '../observe/request-log.ts';
import { BufferPool } from '../support/buffer-pool.ts';
import { Exchange } from './exchange.ts';

const observation: Observation = {
  id: requestId('x'),
  operation: undefined,
  binding: undefined,
  outcome: 'ok',
  bytesIn: 0,
  bytesOut: 0,
};

function exchange() {
  const { req, res } = fake({ url: '/' });
  return { res, exchange: new Exchange(req, res, observation, '/', '') };
}

test('the signal fires when the response closes before it is written, not after', () => {
  const left = exchange();
  const signal = left.exchange.signal;
  assert.equal(signal.aborted, false);
  assert.equal(left.exchange.signal, signal, 'made once');
  left.res.destroy();
  assert.equal(signal.aborted, true);

  const answered = exchange();
  const kept = answered.exchange.signal;
  answered.res.end(Buffer.from('done'));
  assert.equal(kept.aborted, false);
});

test('a signal asked for after the client left has fired already', () => {
  const late = exchange();
  late.res.destroy();
  assert.equal(late.exchange.signal.aborted, true);
});

test('buffers lent to an answer go back to the pool once it is written, not when it is cut', () => {
  const pool = new BufferPool(1024 * 1024, 256 * 1024);
  const written = exchange();
  written.exchange.borrow(pool, 40_000);
  written.exchange.borrow(pool, 10_000);
  assert.equal(pool.kept, 0, 'lent until the answer is written');
  written.res.end(Buffer.from('done'));
  assert.equal(pool.kept, 64 * 1024 + 16 * 1024);

  const cut = exchange();
  cut.exchange.borrow(pool, 40_000);
  cut.res.destroy();
  assert.equal(pool.kept, 16 * 1024, 'a socket may still be writing it: left to the collector');
});
