/**
 * JSON writers compiled once per operation from the contract, as the XML writers are
 * (serialize.ts): for each type a closure that writes a value of it, so no schema is
 * walked per request. Fields keep the contract's names, order and types (an xs:int a
 * number, an xs:boolean a boolean); a value the XML answer omits or sends as nil is
 * `null`; an empty list is `[]`. A record with binary `data` (wsAnhang, wsBild) carries
 * no base64: `contentUrl`, the URL of its content route, takes the field's place.
 */
import type { Arguments, Operation } from '../../contract/operations.ts';
import type { ComplexType, Field, ValueType } from '../../contract/schema.ts';
import { CONTENT_ROUTES, contentUrl } from './routes.ts';

type Record_ = Readonly<Record<string, unknown>>;
type WriteValue = (value: unknown, args: Arguments) => string;

/** The JSON text of the result's one member (the record or list the operation returns). */
export type JsonWriter = (result: Record_, args: Arguments) => string;

const text = (value: unknown) => JSON.stringify(value);

class Compiler {
  private readonly complexWriters = new Map<string, WriteValue>();

  constructor(private readonly base: string) {}

  valueWriter(type: ValueType): WriteValue {
    switch (type.kind) {
      case 'enum':
        return text;
      case 'scalar':
        switch (type.name) {
          case 'int':
            return (value) => String(value);
          case 'boolean':
            return (value) => (value ? 'true' : 'false');
          case 'string':
          case 'guid':
            return text;
          case 'base64Binary':
            throw new Error('binary data is linked (contentUrl), never written as JSON');
        }
        break;
      case 'complex':
        return this.complexWriter(type);
      case 'array': {
        const item = this.valueWriter(type.item);
        return (value, args) => {
          const items = value as readonly unknown[];
          let out = '[';
          for (let i = 0; i < items.length; i++) {
            const entry = items[i];
            if (i > 0) out += ',';
            out += entry === null || entry === undefined ? 'null' : item(entry, args);
          }
          return `${out}]`;
        };
      }
    }
  }

  private complexWriter(type: ComplexType): WriteValue {
    const known = this.complexWriters.get(type.name);
    if (known) return known;
    const compiled: Array<(record: Record_, args: Arguments) => string> = [];
    const writer: WriteValue = (value, args) => {
      const record = value as Record_;
      let out = '{';
      for (let i = 0; i < compiled.length; i++) out += (i > 0 ? ',' : '') + compiled[i]!(record, args);
      return `${out}}`;
    };
    // Registered before compiling the fields so recursive types would terminate.
    this.complexWriters.set(type.name, writer);
    for (const f of type.fields) compiled.push(this.fieldWriter(type, f));
    return writer;
  }

  private fieldWriter(owner: ComplexType, f: Field): (record: Record_, args: Arguments) => string {
    if (f.type.kind === 'scalar' && f.type.name === 'base64Binary') {
      const route = CONTENT_ROUTES.get(owner.name);
      if (!route) throw new Error(`${owner.name}.${f.name} is binary, but no JSON route serves its content`);
      const base = this.base;
      return (record, args) => `"contentUrl":${text(contentUrl(route, base, record, args))}`;
    }
    const write = this.valueWriter(f.type);
    const key = `${text(f.name)}:`;
    return (record, args) => {
      const value = record[f.name];
      return key + (value === null || value === undefined ? 'null' : write(value, args));
    };
  }
}

/**
 * The operation's JSON writer. `base` prefixes content URLs: SCOOP_PUBLIC_URL, or empty
 * for root-relative ones (an answer then does not depend on the Host it was asked by).
 */
export function compileJsonWriter(operation: Operation, base: string): JsonWriter {
  const member = operation.result.fields[0]!;
  const write = new Compiler(base).valueWriter(member.type);
  return (result, args) => {
    const value = result[member.name];
    return value === null || value === undefined ? 'null' : write(value, args);
  };
}
