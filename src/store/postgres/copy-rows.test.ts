import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { POSTGRES, withPg } from '../../../test/support/databases.ts';
import { CopyEncoder, type CopyType, type CopyValue, copyRows } from './copy-rows.ts';

const COLUMNS = [
  ['n', 'int4'],
  ['big', 'int8'],
  ['label', 'text'],
  ['data', 'bytea'],
  ['ids', 'int4[]'],
] as const satisfies readonly (readonly [string, CopyType])[];

interface Row {
  n: number | null;
  big: string | null;
  label: string | null;
  data: Buffer | null;
  ids: number[] | null;
}

async function copiedBack(rows: Iterable<CopyValue[]> | AsyncIterable<CopyValue[]>): Promise<Row[]> {
  return withPg(async (client) => {
    await client.query(
      'CREATE TEMP TABLE copied (n integer, big bigint, label text, data bytea, ids integer[])',
    );
    await copyRows(client, 'copied', COLUMNS, rows);
    return (await client.query<Row>('SELECT n, big::text AS big, label, data, ids FROM copied')).rows;
  });
}

describe('copyRows (PostgreSQL binary COPY)', () => {
  POSTGRES.test('every type, nulls, empty values and a long text arrive as written', async () => {
    const long = randomBytes(200 * 1024);
    const rows: CopyValue[][] = [
      [1, 1_732_000_000_000, 'Grüße 😀 <&>', Buffer.from('small'), [3, 1, 2]],
      [-2147483648, -1, '', long, []],
      [null, null, null, null, null],
      [2, 2, 'ü'.repeat(40_000), Buffer.alloc(0), [7]],
    ];
    const back = await copiedBack(rows);
    assert.deepEqual(back, [
      { n: 1, big: '1732000000000', label: 'Grüße 😀 <&>', data: Buffer.from('small'), ids: [3, 1, 2] },
      { n: -2147483648, big: '-1', label: '', data: long, ids: [] },
      { n: null, big: null, label: null, data: null, ids: null },
      { n: 2, big: '2', label: 'ü'.repeat(40_000), data: Buffer.alloc(0), ids: [7] },
    ]);
  });

  POSTGRES.test('many small rows past one gathered piece, from an async source, in order', async () => {
    const rows = Array.from({ length: 5000 }, (_, i): CopyValue[] => [
      i,
      i * 1000,
      `row ${i}`,
      Buffer.alloc(100, i % 256),
      [i],
    ]);
    const back = await copiedBack(
      (async function* () {
        yield* rows;
      })(),
    );
    assert.equal(back.length, 5000);
    for (const [i, row] of back.entries()) {
      assert.deepEqual(row, {
        n: i,
        big: String(i * 1000),
        label: `row ${i}`,
        data: Buffer.alloc(100, i % 256),
        ids: [i],
      });
    }
  });

  POSTGRES.test(
    'a failure inside a transaction fails the COPY with its own error; the transaction rolls back',
    async () => {
      await withPg(async (client) => {
        await client.query(
          'CREATE TEMP TABLE copied (n integer PRIMARY KEY, big bigint, label text, data bytea, ids integer[])',
        );
        const row = (n: number): CopyValue[] => [n, 0, 'a', Buffer.alloc(100 * 1024, n), []];
        const failures: Array<[string, Iterable<CopyValue[]> | AsyncIterable<CopyValue[]>, RegExp]> = [
          ['a row that does not fit the columns', [row(1), [1, 2]], /a row of 2 values for 5 columns/],
          [
            'a value of the wrong type',
            [row(1), ['1', 2, 'a', null, null]],
            /"1" is not a value of type int4/,
          ],
          [
            'a source that fails partway',
            (async function* () {
              yield row(1);
              throw new Error('the bundle file changed');
            })(),
            /the bundle file changed/,
          ],
          ['a row PostgreSQL refuses', [row(1), row(2), row(1)], /duplicate key value/],
        ];
        for (const [what, rows, error] of failures) {
          await client.query('BEGIN');
          await assert.rejects(copyRows(client, 'copied', COLUMNS, rows), error, what);
          await client.query('ROLLBACK');
          assert.equal((await client.query('SELECT count(*)::int AS n FROM copied')).rows[0].n, 0, what);
        }
      });
    },
  );
});

test('long values are sent as they are, the rest gathered into shared buffers', () => {
  const encoder = new CopyEncoder(['int4', 'bytea']);
  const longs: Buffer[] = Array.from({ length: 100 }, () => randomBytes(70 * 1024));
  for (const [i, long] of longs.entries()) encoder.row([i, long]);
  const pieces = encoder.take(true);
  const own = pieces.filter((piece) => longs.includes(piece));
  assert.equal(own.length, 100, 'each long value is a piece of its own, not a copy');
  const gathered = new Set(pieces.filter((piece) => !longs.includes(piece)).map((piece) => piece.buffer));
  assert.ok(gathered.size <= 2, `the headers of 100 rows share buffers (${gathered.size} for them)`);
  const stream = Buffer.concat(pieces);
  assert.equal(stream.subarray(0, 11).toString('latin1'), 'PGCOPY\n\xff\r\n\0');
  assert.equal(stream.readInt16BE(stream.length - 2), -1, 'ends with the trailer');
});
