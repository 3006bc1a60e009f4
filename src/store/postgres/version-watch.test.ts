/**
 * The version watch on its own, with a stand-in for the LISTEN connection: what it
 * trusts, when it checks, and what a lost connection does. (postgres-store.test.ts and
 * test/postgres-instances.test.ts show the same against a real server.)
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { StoreUnavailableError } from '../content-store.ts';
import { PostgresVersionWatch, type PostgresVersionWatchOptions } from './version-watch.ts';

const CHANNEL = 'scoop_content';

/** What the watch uses of a pg.Client: connect, LISTEN, end, and its events. */
class FakeClient extends EventEmitter {
  listening = false;
  constructor(private readonly refuse: boolean) {
    super();
  }
  async connect(): Promise<void> {
    if (this.refuse) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  }
  async query(text: string): Promise<void> {
    if (text.startsWith('LISTEN')) this.listening = true;
  }
  async end(): Promise<void> {
    this.listening = false;
  }
  notify(payload: string): void {
    this.emit('notification', { channel: CHANNEL, payload, processId: 1 });
  }
  cut(): void {
    this.emit('error', new Error('Connection terminated unexpectedly'));
    this.emit('end');
  }
}

function harness(options: Partial<PostgresVersionWatchOptions> = {}) {
  const state = { version: 1, checks: 0, down: false, refuse: false };
  const clients: FakeClient[] = [];
  const errors: unknown[] = [];
  const watch = new PostgresVersionWatch({
    channel: CHANNEL,
    newClient: () => {
      const client = new FakeClient(state.refuse);
      clients.push(client);
      return client as unknown as pg.Client;
    },
    check: async () => {
      state.checks++;
      if (state.down) throw new StoreUnavailableError('down');
      return state.version;
    },
    onError: (error) => errors.push(error),
    checkEveryMs: 60_000,
    ...options,
  });
  const listener = () => [...clients].reverse().find((c) => c.listening);
  return { state, clients, errors, watch, listener };
}

test('the first read checks; later ones trust what was confirmed, without a query', async (t) => {
  const { state, watch } = harness();
  t.after(() => watch.close());
  assert.equal(await watch.current(), 1);
  assert.equal(await watch.current(), 1);
  await sleep(20);
  assert.equal(await watch.current(), 1);
  assert.ok(state.checks <= 2, `${state.checks} checks`); // the first read's, and one after LISTEN
});

test('a notification moves the version at once; a stale one does not move it back', async (t) => {
  const { watch, listener } = harness();
  t.after(() => watch.close());
  await watch.current();
  await sleep(10);
  listener()!.notify('5');
  assert.equal(await watch.current(), 5);
  listener()!.notify('3');
  listener()!.notify('not a number');
  assert.equal(await watch.current(), 5);
});

test('a check that began before a notification does not undo it', async (t) => {
  let release: (() => void) | undefined;
  const watch = new PostgresVersionWatch({
    channel: CHANNEL,
    newClient: () => new FakeClient(false) as unknown as pg.Client,
    check: async () => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return 1;
    },
    onError: () => undefined,
    checkEveryMs: 60_000,
  });
  t.after(() => watch.close());
  const pending = watch.current(); // checks: the database says 1 …
  await sleep(10);
  watch.observe(2); // … but an import committing 2 was seen meanwhile
  release!();
  assert.equal(await pending, 2);
});

test('once the version cannot be confirmed for the trust period, reads fail instead of trusting it', async (t) => {
  const { state, watch } = harness({ trustForMs: 50 });
  t.after(() => watch.close());
  assert.equal(await watch.current(), 1);
  state.down = true;
  assert.equal(await watch.current(), 1, 'within the trust period');
  await sleep(60);
  await assert.rejects(watch.current(), StoreUnavailableError);
  state.down = false;
  state.version = 4;
  assert.equal(await watch.current(), 4, 'back, and the version read again');
});

test('peek tells the confirmed version without waiting, and nothing once it is no longer trusted', async (t) => {
  const { state, watch } = harness({ trustForMs: 50 });
  t.after(() => watch.close());
  assert.equal(watch.peek(), undefined, 'nothing confirmed yet');
  assert.equal(await watch.current(), 1);
  assert.equal(watch.peek(), 1);
  watch.observe(3);
  assert.equal(watch.peek(), 3, 'a notification is seen at once');
  state.down = true;
  await sleep(60);
  assert.equal(watch.peek(), undefined, 'past the trust period');
});

test('a cut listener re-connects by itself and checks right after', async (t) => {
  const { state, watch, clients, errors, listener } = harness();
  t.after(() => watch.close());
  await watch.current();
  await sleep(10);
  const first = listener()!;
  state.version = 7; // committed while the connection was down: no notification will come
  first.cut();
  assert.equal(errors.length, 1);
  const deadline = Date.now() + 2000;
  while ((listener() === first || !listener()) && Date.now() < deadline) await sleep(10);
  assert.notEqual(listener(), first, 'a new LISTEN connection');
  await sleep(10);
  assert.equal(await watch.current(), 7, 'the version was read after re-connecting');
  assert.ok(clients.length >= 2);
});

test('a refused listener is retried with back-off, and reads still work through checks', async (t) => {
  const { state, watch, clients, errors } = harness();
  state.refuse = true;
  t.after(() => watch.close());
  assert.equal(await watch.current(), 1);
  await sleep(400);
  assert.ok(clients.length >= 2 && clients.length <= 4, `${clients.length} attempts in 400 ms`);
  assert.ok(errors.length >= 2);
  state.refuse = false;
  await sleep(900);
  assert.ok(
    clients.some((c) => c.listening),
    'listening once the server takes connections',
  );
});
