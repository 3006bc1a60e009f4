/**
 * Rows written with `COPY … FROM STDIN` in PostgreSQL's binary format (PostgreSQL 15
 * documentation, COPY, "Binary Format"), for the import's large values: a `bytea` goes to
 * the socket as the Buffer it is. As a parameter of an INSERT it is first copied into pg's
 * Bind message, which pg grows from 256 bytes for every statement (each byte copied about
 * three times, and each copy garbage the collector must free: a fifth of a PostgreSQL
 * import's CPU, docs/performance.md).
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

/** Pieces of the stream are gathered into buffers of this size; a longer `bytea` goes as it is. */
const PIECE_BYTES = 256 * 1024;
/** A `bytea` this long or longer is sent as the caller's buffer, not copied. */
const OWN_PIECE_BYTES = 64 * 1024;

/** COPY's binary stream of rows, as pieces to send: small values gathered, long ones as they are. */
export class CopyEncoder {
  private buffer = Buffer.allocUnsafe(PIECE_BYTES);
  private at = 0;
  private readonly pieces: Buffer[] = [HEADER];

  constructor(private readonly types: readonly CopyType[]) {}

  row(row: readonly CopyValue[]): void {
    const count = this.types.length;
    if (row.length !== count) throw new Error(`a row of ${row.length} values for ${count} columns`);
    this.room(2);
    this.at = this.buffer.writeInt16BE(count, this.at);
    for (let i = 0; i < count; i++) this.field(this.types[i]!, row[i]!);
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
        this.int32(value as number);
        return;
      case 'int8':
        this.room(12);
        this.at = this.buffer.writeInt32BE(8, this.at);
        this.at = this.buffer.writeBigInt64BE(BigInt(value as number), this.at);
        return;
      case 'text':
        this.bytes(Buffer.from(value as string, 'utf8'));
        return;
      case 'bytea':
        this.bytes(value as Buffer);
        return;
      case 'int4[]': {
        const list = value as readonly number[];
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
          this.int32(n);
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

  private room(n: number): void {
    if (this.at + n > this.buffer.length) this.cut();
  }

  /** What is gathered becomes a piece of its own; gathering goes on in a fresh buffer. */
  private cut(): void {
    if (this.at === 0) return;
    this.pieces.push(this.buffer.subarray(0, this.at));
    this.buffer = Buffer.allocUnsafe(PIECE_BYTES);
    this.at = 0;
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
