/**
 * Turns the raw text values a binding found into typed arguments, by the XSD lexical
 * forms of the contract's parameter types (XML Schema part 2 §3.3.17 int, §4.3.6
 * whiteSpace collapse for non-string types). Enumerations such as resizeMode restrict
 * xs:string, whose whiteSpace is `preserve`: a value must be one of them exactly.
 */
import { ScoopError } from '../contract/errors.ts';
import type { Arguments, Operation } from '../contract/operations.ts';
import type { ArrayType, Field } from '../contract/schema.ts';

/** Raw values per parameter name: every occurrence of a scalar, every item of a list. */
export type RawParameters = ReadonlyMap<string, readonly string[]>;

export interface CoerceLimits {
  /** Most items a list parameter may carry. */
  readonly maxListItems: number;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const XML_WHITESPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;
const INT_LEXICAL = /^[+-]?[0-9]+$/;

function collapse(text: string): string {
  return text.replace(XML_WHITESPACE, '');
}

/** Shortened and stripped of control characters, for quoting client input in a message. */
export function quote(value: string): string {
  const shown = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is being removed
  return `'${shown.replace(/[\u0000-\u001F\u007F]/g, '?')}'`;
}

export function parseInt32(name: string, text: string): number {
  const lexical = collapse(text);
  if (lexical === '')
    throw new ScoopError('INVALID_PARAMETER', `Parameter ${name} is empty; expected an xs:int.`);
  if (!INT_LEXICAL.test(lexical)) {
    throw new ScoopError('INVALID_PARAMETER', `Parameter ${name} is not a valid xs:int: ${quote(text)}.`);
  }
  const value = Number(lexical);
  if (value < INT32_MIN || value > INT32_MAX) {
    throw new ScoopError(
      'INVALID_PARAMETER',
      `Parameter ${name} is out of the xs:int range: ${quote(text)}.`,
    );
  }
  return value === 0 ? 0 : value; // no -0
}

function single(name: string, values: readonly string[] | undefined): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1)
    throw new ScoopError('DUPLICATE_PARAMETER', `Parameter ${name} was given more than once.`);
  return values[0];
}

function coerceList(
  param: Field,
  type: ArrayType,
  values: readonly string[],
  limits: CoerceLimits,
): string[] {
  if (values.length > limits.maxListItems) {
    throw new ScoopError(
      'TOO_MANY_VALUES',
      `Parameter ${param.name} has ${values.length} items; at most ${limits.maxListItems} are allowed.`,
    );
  }
  const item = type.item;
  if (item.kind !== 'enum') throw new Error(`unsupported list item type ${item.name}`);
  for (const value of values) {
    if (!item.values.includes(value)) {
      throw new ScoopError(
        'INVALID_PARAMETER',
        `${quote(value)} is not a valid ${item.name}; expected one of ${item.values.join(', ')}.`,
      );
    }
  }
  return [...values];
}

export function coerceArguments(operation: Operation, raw: RawParameters, limits: CoerceLimits): Arguments {
  const result: Record<string, number | string | readonly string[]> = {};
  for (const param of operation.params) {
    const values = raw.get(param.name);
    const type = param.type;
    if (type.kind === 'array') {
      result[param.name] = coerceList(param, type, values ?? [], limits);
      continue;
    }
    const text = single(param.name, values);
    if (type.kind === 'scalar' && type.name === 'int') {
      if (text === undefined)
        throw new ScoopError('MISSING_PARAMETER', `Parameter ${param.name} is missing.`);
      result[param.name] = parseInt32(param.name, text);
    } else if (type.kind === 'scalar' && type.name === 'string') {
      if (text === undefined || collapse(text) === '') {
        throw new ScoopError('MISSING_PARAMETER', `Parameter ${param.name} is missing or empty.`);
      }
      result[param.name] = text;
    } else {
      throw new Error(`unsupported parameter type ${type.name}`);
    }
  }
  return result as Arguments;
}
