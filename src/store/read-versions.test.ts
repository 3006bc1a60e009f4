import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoreUnavailableError } from './content-store.ts';
import { vouchedRead } from './read-versions.ts';

/** A content version that imports move on; each look at it is counted. */
function content(version = 1) {
  const state = { version, looks: 0 };
  const versionNow = async () => {
    state.looks++;
    return state.version;
  };
  return { state, versionNow };
}

test('statements that carry their version need no look of their own', async () => {
  const { state, versionNow } = content(4);
  const done = await vouchedRead(versionNow, async (v) => {
    v.saw(4);
    v.saw(4);
    return 'read';
  });
  assert.deepEqual(done, { result: 'read', version: 4 });
  assert.equal(state.looks, 0);
});

test('a read whose statements saw two versions is made again', async () => {
  const { versionNow } = content(1);
  let attempts = 0;
  const done = await vouchedRead(versionNow, async (v) => {
    attempts++;
    v.saw(attempts === 1 ? 1 : 2);
    v.saw(2);
    return attempts;
  });
  assert.deepEqual(done, { result: 2, version: 2 });
});

test('a statement without its version is looked at before and after', async () => {
  const { state, versionNow } = content(7);
  const done = await vouchedRead(versionNow, async (v) => {
    await v.beforeUnvouched();
    return 'read';
  });
  assert.deepEqual(done, { result: 'read', version: 7 });
  assert.equal(state.looks, 2);
});

test('an import committed after a vouched statement and before the look after is seen', async () => {
  const { state, versionNow } = content(1);
  let attempts = 0;
  const done = await vouchedRead(versionNow, async (v) => {
    attempts++;
    v.saw(state.version);
    await v.beforeUnvouched();
    if (attempts === 1) state.version = 2; // the import commits under the unvouched statement
    return attempts;
  });
  assert.deepEqual(done, { result: 2, version: 2 });
});

test('a read with no statement still says which version it belongs to', async () => {
  const { versionNow } = content(9);
  assert.deepEqual(await vouchedRead(versionNow, async () => 'nothing read'), {
    result: 'nothing read',
    version: 9,
  });
});

test('content that never holds still is StoreUnavailableError, not an endless loop', async () => {
  const { state, versionNow } = content(1);
  await assert.rejects(
    vouchedRead(versionNow, async (v) => {
      await v.beforeUnvouched();
      state.version++;
    }),
    StoreUnavailableError,
  );
});

test('statements running at once: an import between them is seen, whichever sets the version first', async () => {
  const { state } = content(1);
  // The look at the version answers a turn later, as a query would: after the import below.
  const versionNow = async () => {
    await null;
    return state.version;
  };
  let attempts = 0;
  const done = await vouchedRead(versionNow, async (v) => {
    attempts++;
    // The unvouched statement's look at the version is under way when the vouched one lands.
    const looking = v.beforeUnvouched();
    v.saw(state.version);
    if (attempts === 1) state.version = 2; // the import commits between the two
    await looking;
    return attempts;
  });
  assert.deepEqual(done, { result: 2, version: 2 });
});
