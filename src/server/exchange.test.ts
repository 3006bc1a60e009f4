import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fake } from '../../test/support/fake-http.ts';
import { type Observation, requestId } from '../observe/request-log.ts';
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
