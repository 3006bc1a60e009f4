/**
 * The budget of request bodies in flight (SCOOP_MAX_BODY_BYTES_IN_FLIGHT), through the
 * kernel with fakes: a body the budget cannot hold is refused BUSY, unread, with
 * Retry-After; what a request holds is given back exactly once however it ends — answered,
 * refused, or its client gone.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { fake, request } from '../../test/support/fake-http.ts';
import { fixtureAppOptions, openFixtureStore } from '../../test/support/fixture-server.ts';
import type { ContentStore } from '../store/content-store.ts';
import { createApp } from './app.ts';
import { BodyBudget } from './body-budget.ts';
import type { RequestLike } from './exchange.ts';

const URL = '/scoop/api/v6/public.asmx/getBereich';
const FORM = 'application/x-www-form-urlencoded';
/** A form body of exactly `length` bytes that getBereich answers (unknown names are ignored). */
const form = (length: number) => `bereichID=1&x=${'p'.repeat(length - 14)}`;

/** A request whose body arrives only when the test says so. */
class HeldRequest extends EventEmitter {
  readonly method = 'POST';
  readonly url = URL;
  readonly headers: Record<string, string>;
  readonly rawHeaders: string[];
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  readonly socket = { remoteAddress: '192.0.2.7' };

  constructor(declared: number | undefined) {
    super();
    this.headers = { host: 'localhost', 'content-type': FORM };
    if (declared === undefined) this.headers['transfer-encoding'] = 'chunked';
    else this.headers['content-length'] = String(declared);
    this.rawHeaders = Object.entries(this.headers).flat();
  }

  pause(): this {
    return this;
  }
}

describe('the budget of request bodies in flight', () => {
  let store: ContentStore;
  let close: () => Promise<void>;
  const refused: RequestLike[] = [];
  const app = (maxBodyBytes: number, maxBodyBytesInFlight: number) =>
    createApp(
      fixtureAppOptions(store, {
        maxBodyBytes,
        maxBodyBytesInFlight,
        afterRefusedUpload: (req) => refused.push(req),
      }),
    );
  /** A request held open with its body declared (or chunked), and its answer. */
  const hold = (handle: ReturnType<typeof app>, declared: number | undefined) => {
    const req = new HeldRequest(declared);
    const { res, answer } = fake({ url: URL });
    handle(req, res);
    return { req, res, answer };
  };

  before(async () => {
    ({ store, close } = await openFixtureStore());
  });
  after(() => close());

  test('a claim counts what it takes under the limit and is released once', () => {
    const budget = new BodyBudget(100);
    const a = budget.claim();
    const b = budget.claim();
    assert.ok(a.take(60));
    assert.ok(!b.take(41));
    assert.ok(b.take(40));
    assert.equal(budget.used, 100);
    a.release();
    a.release();
    assert.equal(budget.used, 40);
    assert.ok(a.take(1000), 'a released claim counts nothing more');
    assert.equal(budget.used, 40);
    b.release();
    assert.equal(budget.used, 0);
  });

  test('a declared body the budget cannot hold is refused BUSY, unread, with Retry-After', async () => {
    const handle = app(100, 150);
    const first = hold(handle, 100);
    refused.length = 0;
    const second = hold(handle, 100);
    const answer = await second.answer;
    assert.equal(answer.status, 503);
    assert.match(answer.text, /<code>BUSY<\/code>/);
    assert.equal(answer.headers['retry-after'], '1');
    assert.equal(answer.headers.connection, 'close');
    assert.deepEqual(refused, [second.req]);
    assert.equal(second.req.listenerCount('data'), 0, 'its body is never read');
    // The first is answered as usual, and gives its share back.
    first.req.emit('data', Buffer.from(form(100)));
    first.req.emit('end');
    assert.equal((await first.answer).status, 200);
    const third = await request(handle, {
      method: 'POST',
      url: URL,
      headers: [['Content-Type', FORM]],
      body: form(100),
    });
    assert.equal(third.status, 200);
  });

  test('a chunked body counts as its chunks arrive', async () => {
    const handle = app(100, 150);
    const first = hold(handle, undefined);
    first.req.emit('data', Buffer.from('x'.repeat(100)));
    const second = hold(handle, undefined);
    second.req.emit('data', Buffer.from('y'.repeat(40)));
    second.req.emit('data', Buffer.from('y'.repeat(20)));
    const answer = await second.answer;
    assert.equal(answer.status, 503);
    assert.match(answer.text, /<code>BUSY<\/code>/);
    first.res.destroy();
  });

  test('what a request holds comes back once, whether it was answered, refused or its client went away', async () => {
    const handle = app(150, 150);
    const post = (body: string, type = FORM) =>
      request(handle, { method: 'POST', url: URL, headers: [['Content-Type', type]], body });
    for (let i = 0; i < 5; i++) {
      assert.equal((await post(form(150))).status, 200);
      assert.equal((await post('bereichID=x')).status, 400);
      assert.equal((await post(form(151))).status, 413);
      const gone = hold(handle, 150);
      gone.req.emit('data', Buffer.from('bereichID'));
      gone.req.emit('error', new Error('aborted'));
      gone.res.destroy();
      await gone.answer;
      const silent = hold(handle, undefined);
      silent.res.destroy();
    }
    // Nothing is left over (a whole budget fits again) and nothing was given back twice
    // (a second whole budget does not).
    const held = hold(handle, 150);
    const refusedNow = hold(handle, 1);
    assert.equal((await refusedNow.answer).status, 503);
    held.res.destroy();
  });
});
