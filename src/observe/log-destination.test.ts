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

test('lines are written within the gathering time of the first held, however many come after it', async () => {
  const out = recorder();
  const gatherMs = 200;
  const log = logDestination(1, { write: out.write, atomicWrites: false, gatherMs });
  const started = performance.now();
  log.write('a\n');
  await sleep(gatherMs * 0.75);
  log.write('b\n');
  while (out.writes.length === 0 && performance.now() - started < gatherMs * 4) await sleep(5);
  assert.deepEqual(out.writes, ['a\nb\n']);
  // A timer started again by each line (a debounce) would hold both until 1.75 × gatherMs.
  const elapsed = performance.now() - started;
  assert.ok(elapsed < gatherMs * 1.6, `written ${elapsed} ms after the first line`);
});

test('a write before the gathering time is up (a full buffer) leaves one timer, not two', async () => {
  const out = recorder();
  // Long enough that the test's own sleeps, and the event loop's cached clock that timers
  // start from, are small beside it.
  const gatherMs = 200;
  const log = logDestination(1, { write: out.write, atomicWrites: false, gatherMs });
  log.write('a\n');
  const long = `${'x'.repeat(300_000)}\n`;
  // Longer than the buffer: written at once, after what was held.
  log.write(long);
  assert.equal(out.writes.join(''), `a\n${long}`);
  await sleep(gatherMs / 2);
  // Held by the timer the first line armed; with a second timer armed here as well, the
  // next line would go out when that one fired, well before its own time was up.
  log.write('b\n');
  await sleep(gatherMs * 0.75);
  assert.equal(out.text(), `a\n${long}b\n`);
  const logged = performance.now();
  log.write('c\n');
  while (!out.text().endsWith('c\n') && performance.now() - logged < gatherMs * 4) await sleep(5);
  assert.ok(performance.now() - logged >= gatherMs - 10, `c written ${performance.now() - logged} ms after`);
  assert.equal(out.text(), `a\n${long}b\nc\n`);
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
