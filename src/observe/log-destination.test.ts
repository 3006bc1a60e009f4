import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isoTime, logDestination } from './log-destination.ts';

function recorder(behaviour: (data: Buffer, call: number) => number | Error = (data) => data.length) {
  const bytes: Buffer[] = [];
  let calls = 0;
  const write = (_fd: number, data: string | Buffer) => {
    const buffer = Buffer.from(data);
    const outcome = behaviour(buffer, calls++);
    if (outcome instanceof Error) throw outcome;
    bytes.push(buffer.subarray(0, outcome));
    return outcome;
  };
  return {
    write,
    get writes() {
      return bytes.map((b) => b.toString());
    },
    text: () => Buffer.concat(bytes).toString(),
  };
}

function errno(code: string): Error {
  return Object.assign(new Error(code), { code });
}

test("a turn's lines are written together, in order, once the turn's callbacks have run", async () => {
  const out = recorder();
  const log = logDestination(1, { write: out.write, atomicWrites: false });
  log.write('a\n');
  log.write('b\n');
  assert.deepEqual(out.writes, [], 'nothing is written while the turn goes on');
  await nextTurn();
  assert.deepEqual(out.writes, ['a\nb\n']);
  log.write('c\n');
  await nextTurn();
  assert.deepEqual(out.writes, ['a\nb\n', 'c\n']);
});

test('into a pipe, each write is whole lines of at most PIPE_BUF bytes', async () => {
  const out = recorder();
  const log = logDestination(1, { write: out.write, atomicWrites: true });
  const line = (i: number) => `${JSON.stringify({ i, pad: 'ü'.repeat(150) })}\n`;
  const lines = Array.from({ length: 100 }, (_, i) => line(i));
  for (const l of lines) log.write(l);
  const long = `${'x'.repeat(5000)}\n`;
  log.write(long);
  await nextTurn();
  assert.equal(out.writes.join(''), [...lines, long].join(''));
  for (const piece of out.writes) {
    assert.ok(piece.endsWith('\n'), 'a write ends at the end of a line');
    if (piece !== long) assert.ok(Buffer.byteLength(piece) <= 4096, `${Buffer.byteLength(piece)} bytes`);
  }
  assert.ok(out.writes.length > 5, 'the lines were not written one by one');
  assert.ok(out.writes.length < 30);
});

test('a partial write goes on from the byte it stopped at; a full pipe is tried again later', async () => {
  const out = recorder((data, call) => {
    if (call === 0) return 2; // 'ü' is two bytes: the write stops inside it
    if (call === 1) return errno('EAGAIN');
    return data.length;
  });
  const log = logDestination(1, { write: out.write, atomicWrites: false });
  log.write('aüb\n');
  log.write('c\n');
  await nextTurn();
  assert.equal(out.writes.length, 1, 'the rest waits for the pipe');
  log.write('d\n');
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(out.text(), 'aüb\nc\nd\n');
});

test('into a pipe, lines held while it was full are still written as whole lines of at most PIPE_BUF bytes', async () => {
  const out = recorder((data, call) => (call === 0 ? errno('EAGAIN') : data.length));
  const log = logDestination(1, { write: out.write, atomicWrites: true });
  const lines = Array.from({ length: 100 }, (_, i) => `${JSON.stringify({ i, pad: 'x'.repeat(300) })}\n`);
  for (const l of lines.slice(0, 50)) log.write(l);
  await nextTurn();
  assert.equal(out.writes.length, 0, 'the pipe took nothing');
  for (const l of lines.slice(50)) log.write(l);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(out.text(), lines.join(''));
  for (const piece of out.writes) {
    assert.ok(piece.endsWith('\n'), 'a write ends at the end of a line');
    assert.ok(Buffer.byteLength(piece) <= 4096, `${Buffer.byteLength(piece)} bytes`);
  }
});

test('a broken output drops and counts lines, and never throws to the logger', async () => {
  const out = recorder(() => errno('EPIPE'));
  const log = logDestination(1, { write: out.write, atomicWrites: false });
  log.write('a\n');
  log.write('b\n');
  await nextTurn();
  assert.equal(log.dropped, 2);
});

test('flushSync writes what is held at once', () => {
  const out = recorder();
  const log = logDestination(1, { write: out.write, atomicWrites: false });
  log.write('a\n');
  log.flushSync();
  assert.deepEqual(out.writes, ['a\n']);
});

test("isoTime is pino's ISO 8601 time field", () => {
  const before = Date.now();
  const field = isoTime();
  const match = /^,"time":"(.+)"$/.exec(field);
  assert.ok(match);
  const at = Date.parse(match[1]!);
  assert.ok(at >= before && at <= Date.now());
  assert.equal(new Date(at).toISOString(), match[1]);
});
