import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe } from 'node:test';
import { POSTGRES, withPg } from '../../../test/support/databases.ts';
import { type CopyType, type CopyValue, copyRows } from './copy-rows.ts';

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
  POSTGRES.test('every type, nulls and empty lists arrive as written', async () => {
    const long = randomBytes(200 * 1024);
    const rows: CopyValue[][] = [
      [1, 1_732_000_000_000, 'Grüße 😀 <&>', Buffer.from('small'), [3, 1, 2]],
      [-2147483648, -1, '', long, []],
      [null, null, null, null, null],
    ];
    const back = await copiedBack(rows);
    assert.deepEqual(back, [
      { n: 1, big: '1732000000000', label: 'Grüße 😀 <&>', data: Buffer.from('small'), ids: [3, 1, 2] },
      { n: -2147483648, big: '-1', label: '', data: long, ids: [] },
      { n: null, big: null, label: null, data: null, ids: null },
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
    'a row that does not fit the columns fails the COPY, and the connection goes on',
    async () => {
      await withPg(async (client) => {
        await client.query(
          'CREATE TEMP TABLE copied (n integer, big bigint, label text, data bytea, ids integer[])',
        );
        await assert.rejects(
          copyRows(client, 'copied', COLUMNS, [
            [1, 2, 'a', Buffer.from('b'), []],
            [1, 2],
          ]),
          /a row of 2 values for 5 columns/,
        );
        assert.equal((await client.query('SELECT count(*)::int AS n FROM copied')).rows[0].n, 0);
      });
    },
  );
});
