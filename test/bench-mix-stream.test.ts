import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { drawsTaken, MixStream, mixScript, writeMixOrder } from '../bench/mix/wrk-script.ts';

const files = { requests: '/data/mix.bin', order: '/data/order.txt' };

test("each run of the mix's stream starts where the runs before it left off, round the order", () => {
  const stream = new MixStream(files, 10);
  assert.equal(stream.at, 0);
  stream.advance(7);
  assert.equal(stream.at, 7);
  assert.equal(stream.wrapped, false);
  stream.advance(5);
  assert.equal(stream.at, 2);
  assert.equal(stream.wrapped, true, 'past its end the stream sends its draws again, and says so');
  assert.match(stream.script(), /position = 2 % #order/);
  // A run sent the same stretch as another (the ceiling beside ours) starts where that one did.
  assert.match(stream.script(9), /position = 9 % #order/);
  assert.equal(stream.at, 2);
});

test("the mix's script starts at the position it is given, not at LuaJIT's one unseeded random draw", () => {
  const script = mixScript(files, 1234);
  assert.doesNotMatch(script, /math\.random/);
  assert.match(script, /position = 1234 % #order/);
  assert.match(script, /io\.open\("\/data\/mix\.bin", "rb"\)/);
  assert.match(script, /io\.lines\("\/data\/order\.txt"\)/);
});

test("an order is written 1-based, as Lua's tables count", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'scoop-mix-order-'));
  try {
    const file = path.join(dir, 'order.txt');
    writeMixOrder(Int32Array.from([0, 4, 2]), file);
    assert.equal(readFileSync(file, 'utf8'), '1\n5\n3');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a run's draws include wrk's check of the script and the requests still in flight when it stopped", () => {
  // 100 answered on 32 connections: the check took one draw, and up to 32 were sent unanswered.
  assert.equal(drawsTaken(100, 32), 133);
});
