import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { GATHER_MS, isoTime, logDestination } from './log-destination.ts';

/** Past the time lines are gathered for. */
const gathered = () => sleep(GATHER_MS + 15);

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

test('lines are gathered and written together, in order, GATHER_MS after the first', async () => {
  const out = recorder();
  const log = logDestination(1, { write: out.write, atomicWrites: false });
  log.write('a\n');
  await sleep(1);
  log.write('b\n');
  assert.deepEqual(out.writes, [], 'nothing is written at once');
  await gathered();
  assert.deepEqual(out.writes, ['a\nb\n']);
  log.write('c\n');
  await gathered();
  assert.deepEqual(out.writes, ['a\nb\n', 'c\n']);
});

test('a line made as bytes takes its place among the others', async () => {
  const out = recorder();
  const log = logDestination(1, { write: out.write, atomicWrites: true });
  const fill = (to: Buffer, at: number, text: string) => at + to.write(text, at);
  log.write('a\n');
  log.append(16, fill, 'ü\n');
  log.write('c\n');
  // Longer than the whole buffer: held whole after what came before.
  const long = `${'x'.repeat(300_000)}\n`;
  log.append(long.length, fill, long);
  log.append(4, fill, 'd\n');
  await gathered();
  assert.equal(out.text(), `a\nü\nc\n${long}d\n`);
  for (const piece of out.writes) assert.ok(piece.endsWith('\n'), 'a write ends at the end of a line');
});

test('past what may be held, a line made as bytes is dropped, counted, and not made', async () => {
  const out = recorder(() => errno('EAGAIN'));
  const log = logDestination(1, { write: out.write, atomicWrites: false });
  const line = `${'x'.repeat(99_999)}\n`;
  let made = 0;
  const fill = (to: Buffer, at: number) => {
    made++;
    return at + to.write(line, at);
  };
  for (let i = 0; i < 200; i++) log.append(line.length, fill, undefined);
  assert.equal(made + log.dropped, 200);
  assert.ok(log.dropped > 0 && made >= 160, `${made} made, ${log.dropped} dropped`);
});

test('into a pipe, each write is whole lines of at most PIPE_BUF bytes', async () => {
  const out = recorder();
  const log = logDestination(1, { write: out.write, atomicWrites: true });
  const line = (i: number) => `${JSON.stringify({ i, pad: 'ü'.repeat(150) })}\n`;
  const lines = Array.from({ length: 100 }, (_, i) => line(i));
  for (const l of lines) log.write(l);
  const long = `${'x'.repeat(5000)}\n`;
  log.write(long);
  await gathered();
  assert.equal(out.writes.join(''), [...lines, long].join(''));
  for (const piece of out.writes) {
    assert.ok(piece.endsWith('\n'), 'a write ends at the end of a line');
    if (piece !== long) assert.ok(Buffer.byteLength(piece) <= 4096, `${Buffer.byteLength(piece)} bytes`);
  }
  assert.ok(out.writes.length > 5, 'the lines were not written one by one');
  assert.ok(out.writes.length < 30);
});

test('a partial write goes on from the byte it stopped at; a full pipe is tried again later', async () => {
  let full = false;
  const out = recorder((data, call) => {
    if (call === 0) {
      full = true;
      return 2; // 'ü' is two bytes: the write stops inside it
    }
    return full ? errno('EAGAIN') : data.length;
  });
  const log = logDestination(1, { write: out.write, atomicWrites: false });
  log.write('aüb\n');
  log.write('c\n');
  await gathered();
  assert.equal(out.writes.length, 1, 'the rest waits for the pipe');
  log.write('d\n');
  await gathered();
  assert.equal(out.writes.length, 1, 'tried again, and the pipe is still full');
  full = false;
  await gathered();
  assert.equal(out.text(), 'aüb\nc\nd\n');
});

test('into a pipe, lines held while it was full are still written as whole lines of at most PIPE_BUF bytes', async () => {
  let full = true;
  const out = recorder((data) => (full ? errno('EAGAIN') : data.length));
  const log = logDestination(1, { write: out.write, atomicWrites: true });
  const lines = Array.from({ length: 100 }, (_, i) => `${JSON.stringify({ i, pad: 'x'.repeat(300) })}\n`);
  for (const l of lines.slice(0, 50)) log.write(l);
  await gathered();
  assert.equal(out.writes.length, 0, 'the pipe took nothing');
  for (const l of lines.slice(50)) log.write(l);
  full = false;
  await gathered();
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
  await gathered();
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
