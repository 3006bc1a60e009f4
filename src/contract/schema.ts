/**
 * The building blocks of the contract: a small model of the XSD constructs the
 * original service uses (document/literal, elementFormDefault="qualified").
 * Everything on the wire — parsing, serialization, WSDL — is derived from values
 * built with these. The builders keep names and types as literal type parameters, so
 * the TypeScript type of a value of each XSD type is inferred from them (infer.ts).
 */

export type ScalarName = 'int' | 'string' | 'boolean' | 'base64Binary' | 'guid';

export interface ScalarType<N extends ScalarName = ScalarName> {
  readonly kind: 'scalar';
  readonly name: N;
}

export interface EnumType<V extends string = string> {
  readonly kind: 'enum';
  readonly name: string;
  readonly values: readonly V[];
}

export interface ComplexType<F extends readonly Field[] = readonly Field[]> {
  readonly kind: 'complex';
  readonly name: string;
  readonly fields: F;
}

/** A named `ArrayOfX` type: a sequence of repeated item elements. */
export interface ArrayType<I extends ValueType = ValueType> {
  readonly kind: 'array';
  readonly name: string;
  readonly itemName: string;
  readonly item: I;
  /** `nillable="true"` on the item element (complex items in .NET arrays are). */
  readonly nillableItems: boolean;
}

export type ValueType = ScalarType | EnumType | ComplexType | ArrayType;

export interface Field<
  N extends string = string,
  T extends ValueType = ValueType,
  Nil extends boolean = boolean,
> {
  readonly name: N;
  readonly type: T;
  /**
   * Value types (int, boolean) and nillable elements are always written
   * (`minOccurs="1"`); reference types are omitted when null (`minOccurs="0"`).
   */
  readonly required: boolean;
  /** A null value is written as `<name xsi:nil="true" />` instead of being omitted. */
  readonly nillable: Nil;
}

export const INT: ScalarType<'int'> = { kind: 'scalar', name: 'int' };
export const STRING: ScalarType<'string'> = { kind: 'scalar', name: 'string' };
export const BOOLEAN: ScalarType<'boolean'> = { kind: 'scalar', name: 'boolean' };
export const BASE64: ScalarType<'base64Binary'> = { kind: 'scalar', name: 'base64Binary' };
export const GUID: ScalarType<'guid'> = { kind: 'scalar', name: 'guid' };

/** .NET value types (int, bool, Guid, enums) cannot be null, so XmlSerializer always writes them. */
function isValueType(type: ValueType): boolean {
  return type.kind === 'enum' || (type.kind === 'scalar' && ['int', 'boolean', 'guid'].includes(type.name));
}

export function field<const N extends string, T extends ValueType>(name: N, type: T): Field<N, T, false>;
export function field<const N extends string, T extends ValueType>(
  name: N,
  type: T,
  options: { nillable: true },
): Field<N, T, true>;
export function field(name: string, type: ValueType, options: { nillable?: boolean } = {}): Field {
  const nillable = options.nillable ?? false;
  return { name, type, nillable, required: nillable || isValueType(type) };
}

export function complex<const F extends readonly Field[]>(name: string, fields: F): ComplexType<F> {
  return { kind: 'complex', name, fields };
}

/** `ArrayOfWsBereich` of `wsBereich` items, `ArrayOfInt` of `int` items. */
export function arrayOf<I extends ComplexType | ScalarType | EnumType>(item: I): ArrayType<I> {
  const itemName = item.name;
  const name = `ArrayOf${itemName[0]!.toUpperCase()}${itemName.slice(1)}`;
  return { kind: 'array', name, itemName, item, nillableItems: item.kind === 'complex' };
}

export function enumeration<const V extends string>(name: string, values: readonly V[]): EnumType<V> {
  return { kind: 'enum', name, values };
}
