import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressPrinter } from './import-command.ts';

const MB = 1_048_576;

function printer() {
  let now = 1_000;
  let written = '';
  const write = (text: string) => {
    written += text;
  };
  const p = progressPrinter({ write }, () => now);
  return {
    p,
    advance: (ms: number) => {
      now += ms;
    },
    take: () => {
      const text = written;
      written = '';
      return text;
    },
  };
}

test('a phase is drawn at once, then at most every 200 ms, and left with its final figures', () => {
  const { p, advance, take } = printer();
  p.hashing({ files: 0, filesTotal: 2, bytes: MB, bytesTotal: 4 * MB });
  assert.equal(take(), '\r  hashing files 0/2, bytes 1.0 MB/4.0 MB  ');
  advance(100);
  p.hashing({ files: 1, filesTotal: 2, bytes: 2 * MB, bytesTotal: 4 * MB });
  assert.equal(take(), '', 'too soon to redraw');
  advance(100);
  p.hashing({ files: 1, filesTotal: 2, bytes: 3 * MB, bytesTotal: 4 * MB });
  assert.equal(take(), '\r  hashing files 1/2, bytes 3.0 MB/4.0 MB  ');
  advance(10);
  p.hashing({ files: 2, filesTotal: 2, bytes: 4 * MB, bytesTotal: 4 * MB });
  assert.equal(take(), '');
  // The next phase first leaves the last one on its own line, with the figures not yet drawn.
  advance(10);
  p.writing({ records: 1, recordsTotal: 9, bytes: 0, bytesTotal: 4 * MB });
  assert.equal(
    take(),
    '\r  hashing files 2/2, bytes 4.0 MB/4.0 MB  \n\r  writing records 1/9, bytes 0.0 MB/4.0 MB  ',
  );
  advance(50);
  p.writing({ records: 9, recordsTotal: 9, bytes: 4 * MB, bytesTotal: 4 * MB });
  p.finish();
  assert.equal(take(), '\r  writing records 9/9, bytes 4.0 MB/4.0 MB  \n');
  p.finish();
  assert.equal(take(), '', 'finishing twice writes nothing more');
});

test('a finished line whose figures were all drawn only gets its line end', () => {
  const { p, take } = printer();
  p.writing({ records: 3, recordsTotal: 3, bytes: 0, bytesTotal: 0 });
  p.finish();
  assert.equal(take(), '\r  writing records 3/3, bytes 0.0 MB/0.0 MB  \n');
});

test('nothing reported, nothing written', () => {
  const { p, take } = printer();
  p.finish();
  assert.equal(take(), '');
});
