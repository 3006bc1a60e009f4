/**
 * The building blocks of the contract: a small model of the XSD constructs the
 * original service uses (document/literal, elementFormDefault="qualified").
 * Everything on the wire — parsing, serialization, WSDL — is derived from values
 * built with these.
 */

export type ScalarName = 'int' | 'string' | 'boolean' | 'base64Binary' | 'guid';

export interface ScalarType {
  readonly kind: 'scalar';
  readonly name: ScalarName;
}

export interface EnumType {
  readonly kind: 'enum';
  readonly name: string;
  readonly values: readonly string[];
}

export interface ComplexType {
  readonly kind: 'complex';
  readonly name: string;
  readonly fields: readonly Field[];
}

/** A named `ArrayOfX` type: a sequence of repeated item elements. */
export interface ArrayType {
  readonly kind: 'array';
  readonly name: string;
  readonly itemName: string;
  readonly item: ValueType;
  /** `nillable="true"` on the item element (complex items in .NET arrays are). */
  readonly nillableItems: boolean;
}

export type ValueType = ScalarType | EnumType | ComplexType | ArrayType;

export interface Field {
  readonly name: string;
  readonly type: ValueType;
  /**
   * Value types (int, boolean) and nillable elements are always written
   * (`minOccurs="1"`); reference types are omitted when null (`minOccurs="0"`).
   */
  readonly required: boolean;
  /** A null value is written as `<name xsi:nil="true" />` instead of being omitted. */
  readonly nillable: boolean;
}

export const INT: ScalarType = { kind: 'scalar', name: 'int' };
export const STRING: ScalarType = { kind: 'scalar', name: 'string' };
export const BOOLEAN: ScalarType = { kind: 'scalar', name: 'boolean' };
export const BASE64: ScalarType = { kind: 'scalar', name: 'base64Binary' };
export const GUID: ScalarType = { kind: 'scalar', name: 'guid' };

/** .NET value types (int, bool, Guid, enums) cannot be null, so XmlSerializer always writes them. */
function isValueType(type: ValueType): boolean {
  return type.kind === 'enum' || (type.kind === 'scalar' && ['int', 'boolean', 'guid'].includes(type.name));
}

export function field(name: string, type: ValueType, options: { nillable?: boolean } = {}): Field {
  const nillable = options.nillable ?? false;
  return { name, type, nillable, required: nillable || isValueType(type) };
}

export function complex(name: string, fields: readonly Field[]): ComplexType {
  return { kind: 'complex', name, fields };
}

/** `ArrayOfWsBereich` of `wsBereich` items, `ArrayOfInt` of `int` items. */
export function arrayOf(item: ComplexType | ScalarType | EnumType): ArrayType {
  const itemName = item.name;
  const name = `ArrayOf${itemName[0]!.toUpperCase()}${itemName.slice(1)}`;
  return { kind: 'array', name, itemName, item, nillableItems: item.kind === 'complex' };
}

export function enumeration(name: string, values: readonly string[]): EnumType {
  return { kind: 'enum', name, values };
}
