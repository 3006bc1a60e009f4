/**
 * The TypeScript type of a value of each contract type, inferred from the schema values
 * (schema.ts), so the records the handlers return and the writers read are declared once:
 * a field added to types.ts is a field of the record type, with nothing to restate.
 */
import type { ArrayType, ComplexType, EnumType, Field, ScalarName, ScalarType, ValueType } from './schema.ts';

/**
 * A binary source read in chunks, as the store and the image service hand out large
 * binaries (xml/binary.ts's `BinarySource` is one); its size is known before reading.
 */
export interface ChunkedBinary {
  readonly size: number;
  chunks(): AsyncIterable<Uint8Array>;
}

/** An xs:base64Binary value: small ones as bytes, large ones read in chunks. */
export type BinaryValue = Uint8Array | ChunkedBinary;

/**
 * Reference types (string) are null when absent and then omitted on the wire; an empty
 * string is written as an empty element (reference/README.md §2). Binaries are always
 * present in the records that carry them.
 */
interface ScalarValues {
  int: number;
  string: string | null;
  boolean: boolean;
  base64Binary: BinaryValue;
  guid: string;
}

/** The value a field holds: `| null` when the element is nillable (`xsi:nil="true"`). */
export type FieldValueOf<F extends Field> = F['nillable'] extends true
  ? ValueOf<F['type']> | null
  : ValueOf<F['type']>;

/** An object of the fields, keyed by their names. */
export type RecordOf<F extends readonly Field[]> = { [P in F[number] as P['name']]: FieldValueOf<P> };

/** int → number, string → string | null, enum → the union of its values, ArrayOfX → X[], … */
export type ValueOf<T extends ValueType> =
  T extends ScalarType<infer N extends ScalarName>
    ? ScalarValues[N]
    : T extends EnumType<infer V>
      ? V
      : T extends ArrayType<infer I>
        ? ValueOf<I>[]
        : T extends ComplexType<infer F>
          ? RecordOf<F>
          : never;
