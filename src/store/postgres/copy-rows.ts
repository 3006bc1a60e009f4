/**
 * Rows written with `COPY … FROM STDIN` in PostgreSQL's binary format (PostgreSQL 15
 * documentation, COPY, "Binary Format"), for the import's large values: a long `bytea`
 * goes to the socket as the caller's buffer. As a parameter of an INSERT it would first be
 * copied into pg's Bind message, several times over as pg grows it (docs/performance.md,
 * "The tenth round").
 */
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A column's type as COPY's binary format writes it. */
export type CopyType = 'int4' | 'int8' | 'text' | 'bytea' | 'int4[]';

export type CopyValue = number | string | Buffer | readonly number[] | null;

/** The file header: signature, flags (no OIDs), no header extension. */
const HEADER = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);
/** The element type of `int4[]` (pg_type's OID of int4). */
const INT4_OID = 23;

/** Small values and row headers are gathered into buffers of this size. */
const PIECE_BYTES = 256 * 1024;
/** A `bytea` this long or longer is sent as the caller's buffer, not copied. */
const OWN_PIECE_BYTES = 64 * 1024;

function refuse(type: CopyType, value: CopyValue): never {
  throw new TypeError(
    `${typeof value === 'object' ? 'an object' : JSON.stringify(value)} is not a value of type ${type}`,
  );
}

function integer(type: CopyType, value: CopyValue): number {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : refuse(type, value);
}

/**
 * COPY's binary stream of rows, as pieces to send: small values gathered into a shared
 * buffer (each piece a view of the part written since the last), long ones as they are.
 */
export class CopyEncoder {
  private buffer = Buffer.allocUnsafe(PIECE_BYTES);
  /** Where the part not yet given out as a piece starts, and where writing goes on. */
  private start = 0;
  private at = 0;
  private readonly pieces: Buffer[] = [HEADER];

  constructor(private readonly types: readonly CopyType[]) {}

  row(row: readonly CopyValue[]): void {
    const count = this.types.length;
    if (row.length !== count) throw new Error(`a row of ${row.length} values for ${count} columns`);
    this.room(2);
    this.at = this.buffer.writeInt16BE(count, this.at);
    for (let i = 0; i < count; i++) this.field(this.types[i], row[i]);
  }

  /** The pieces complete so far, given away; with `end`, the rest and the trailer (a field count of -1). */
  take(end = false): Buffer[] {
    if (end) {
      this.room(2);
      this.at = this.buffer.writeInt16BE(-1, this.at);
      this.cut();
    }
    return this.pieces.splice(0);
  }

  private field(type: CopyType, value: CopyValue): void {
    if (value === null) {
      this.int32(-1);
      return;
    }
    switch (type) {
      case 'int4':
        this.int32(4);
        this.int32(integer(type, value));
        return;
      case 'int8':
        this.room(12);
        this.at = this.buffer.writeInt32BE(8, this.at);
        this.at = this.buffer.writeBigInt64BE(BigInt(integer(type, value)), this.at);
        return;
      case 'text':
        this.bytes(typeof value === 'string' ? Buffer.from(value, 'utf8') : refuse(type, value));
        return;
      case 'bytea':
        this.bytes(Buffer.isBuffer(value) ? value : refuse(type, value));
        return;
      case 'int4[]': {
        const list = Array.isArray(value) ? (value as readonly number[]) : refuse(type, value);
        // ndim, has-nulls flag, element type; for one dimension its length and lower bound; then each element.
        const dims = list.length > 0 ? 1 : 0;
        this.int32(12 + dims * 8 + list.length * 8);
        this.int32(dims);
        this.int32(0);
        this.int32(INT4_OID);
        if (dims > 0) {
          this.int32(list.length);
          this.int32(1);
        }
        for (const n of list) {
          this.int32(4);
          this.int32(integer(type, n));
        }
        return;
      }
    }
  }

  private int32(n: number): void {
    this.room(4);
    this.at = this.buffer.writeInt32BE(n, this.at);
  }

  private bytes(value: Buffer): void {
    this.int32(value.length);
    if (value.length >= OWN_PIECE_BYTES) {
      this.cut();
      this.pieces.push(value);
      return;
    }
    this.room(value.length);
    this.at += value.copy(this.buffer, this.at);
  }

  /** Makes sure `n` more bytes fit, in a fresh buffer when the current one is full. */
  private room(n: number): void {
    if (this.at + n <= this.buffer.length) return;
    this.cut();
    this.buffer = Buffer.allocUnsafe(Math.max(PIECE_BYTES, n));
    this.start = 0;
    this.at = 0;
  }

  /** What was written since the last piece becomes one. */
  private cut(): void {
    if (this.at === this.start) return;
    this.pieces.push(this.buffer.subarray(this.start, this.at));
    this.start = this.at;
  }
}

/** Writes `rows` into `table`'s `columns` with one COPY on `client` (inside its transaction). */
export async function copyRows(
  client: pg.ClientBase,
  table: string,
  columns: readonly (readonly [name: string, type: CopyType])[],
  rows: Iterable<readonly CopyValue[]> | AsyncIterable<readonly CopyValue[]>,
): Promise<void> {
  const encoder = new CopyEncoder(columns.map(([, type]) => type));
  const names = columns.map(([name]) => name).join(', ');
  const stream = client.query(copyFrom(`COPY ${table} (${names}) FROM STDIN (FORMAT binary)`));
  await pipeline(async function* () {
    for await (const row of rows) {
      encoder.row(row);
      yield* encoder.take();
    }
    yield* encoder.take(true);
  }, stream);
}
