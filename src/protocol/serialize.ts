/**
 * Response writers compiled once per operation from the contract: for each type a
 * closure that writes a value of that type, so no schema is walked per request.
 */
import type { Arguments, Operation, Result } from '../contract/operations.ts';
import type { ArrayType, ComplexType, Field, ValueType } from '../contract/schema.ts';
import type { Binary } from '../xml/binary.ts';
import { escapeAttribute } from '../xml/escape.ts';
import { type BodyPart, type MarkupWriter, XmlWriter } from '../xml/writer.ts';
import { compileJsonWriter } from './json/serialize.ts';
import {
  ENVELOPE_END,
  envelopeStart,
  type SoapVersion,
  XML_DECLARATION,
  XSD_NS,
  XSI_NS,
} from './namespaces.ts';

type WriteValue = (w: MarkupWriter, name: string, depth: number, value: unknown) => void;
type WriteFields = (w: MarkupWriter, depth: number, record: Readonly<Record<string, unknown>>) => void;

function writeScalar(type: ValueType): WriteValue {
  if (type.kind === 'enum') return (w, name, depth, value) => w.plainLeaf(name, depth, String(value));
  if (type.kind !== 'scalar') throw new Error(`not a scalar: ${type.name}`);
  switch (type.name) {
    case 'int':
      return (w, name, depth, value) => w.plainLeaf(name, depth, String(value));
    case 'boolean':
      return (w, name, depth, value) => w.plainLeaf(name, depth, value ? 'true' : 'false');
    case 'string':
    case 'guid':
      return (w, name, depth, value) => w.leaf(name, depth, value as string);
    case 'base64Binary':
      return (w, name, depth, value) => w.binary(name, depth, value as Binary);
  }
}

class Compiler {
  private readonly complexWriters = new Map<string, WriteFields>();

  valueWriter(type: ValueType): WriteValue {
    switch (type.kind) {
      case 'scalar':
      case 'enum':
        return writeScalar(type);
      case 'complex': {
        const fields = this.fieldsWriter(type);
        return (w, name, depth, value) => {
          w.open(name, depth);
          fields(w, depth + 1, value as Record<string, unknown>);
          w.close(name, depth);
        };
      }
      case 'array':
        return this.arrayWriter(type);
    }
  }

  private arrayWriter(type: ArrayType): WriteValue {
    const item = this.valueWriter(type.item);
    const { itemName, nillableItems } = type;
    return (w, name, depth, value) => {
      const items = value as readonly unknown[];
      if (items.length === 0) return w.empty(name, depth);
      w.open(name, depth);
      for (const entry of items) {
        if (entry === null || entry === undefined) {
          if (!nillableItems) throw new Error(`null item in ${type.name}`);
          w.nil(itemName, depth + 1);
        } else {
          item(w, itemName, depth + 1, entry);
        }
      }
      w.close(name, depth);
    };
  }

  fieldsWriter(type: ComplexType): WriteFields {
    const known = this.complexWriters.get(type.name);
    if (known) return known;
    // Registered before compiling the fields so recursive types would terminate.
    const compiled: WriteFields[] = [];
    const writer: WriteFields = (w, depth, record) => {
      for (const write of compiled) write(w, depth, record);
    };
    this.complexWriters.set(type.name, writer);
    for (const f of type.fields) compiled.push(this.fieldWriter(type, f));
    return writer;
  }

  private fieldWriter(owner: ComplexType, f: Field): WriteFields {
    const write = this.valueWriter(f.type);
    const { name, nillable, required } = f;
    return (w, depth, record) => {
      const value = record[name];
      if (value === null || value === undefined) {
        if (nillable) return w.nil(name, depth);
        if (required) throw new Error(`${owner.name}.${name} is required`);
        return; // a null reference is omitted, as XmlSerializer does
      }
      write(w, name, depth, value);
    };
  }
}

export interface OperationWriter {
  soap(version: SoapVersion, result: Result): BodyPart[];
  http(result: Result): BodyPart[];
  /**
   * The inside of the answer's result element in the compact layout, as one string: what
   * soap() writes between its envelope's tags, and, indented (xml/indent.ts), what http()
   * writes between its own; an import prepares it ahead (src/prepare/). A binary of
   * `result` must be a reference with a placeholder (prepare/fragment.ts), which the string
   * holds, or bytes small enough to be written inline.
   */
  innerCompact(result: Result): string;
  /** A compact inside (innerCompact()'s, encoded, its references filled in), in the envelope soap() writes. */
  wrapSoap(version: SoapVersion, inner: readonly BodyPart[]): BodyPart[];
  /** An indented inside (innerCompact()'s indented, its references filled in), in the envelope http() writes. */
  wrapHttp(inner: readonly BodyPart[]): BodyPart[];
  /** The JSON API's answer (json/serialize.ts); `args` fill the resize query of a content URL. */
  json(result: Result, args: Arguments): BodyPart[];
}

/** `contentBase` prefixes the JSON API's content URLs (SCOOP_PUBLIC_URL; empty: root-relative). */
export function compileOperationWriter(
  operation: Operation,
  namespace: string,
  contentBase = '',
): OperationWriter {
  const fields = new Compiler().fieldsWriter(operation.result);
  const json = compileJsonWriter(operation, contentBase);
  const ns = escapeAttribute(namespace);
  const soapOpen = `<soap:Body><${operation.name}Response xmlns="${ns}"><${operation.name}Result>`;
  const soapClose = `</${operation.name}Result></${operation.name}Response></soap:Body>${ENVELOPE_END}`;
  const root = operation.result.name;
  const httpOpen = `${XML_DECLARATION}\n<${root} xmlns:xsd="${XSD_NS}" xmlns:xsi="${XSI_NS}" xmlns="${ns}">`;
  const envelopes: Record<SoapVersion, string> = { '1.1': envelopeStart('1.1'), '1.2': envelopeStart('1.2') };
  const soapHeads: Record<SoapVersion, Buffer> = {
    '1.1': Buffer.from(envelopes['1.1'] + soapOpen),
    '1.2': Buffer.from(envelopes['1.2'] + soapOpen),
  };
  const soapTail = Buffer.from(soapClose);
  const httpHead = Buffer.from(httpOpen);
  const httpTail = Buffer.from(`\n</${root}>`);
  return {
    soap(version, result) {
      const w = new XmlWriter(false);
      w.raw(envelopes[version] + soapOpen);
      fields(w, 0, result);
      w.raw(soapClose);
      return w.finish();
    },
    http(result) {
      const w = new XmlWriter(true);
      w.raw(httpOpen);
      fields(w, 1, result);
      w.raw(`\n</${root}>`);
      return w.finish();
    },
    json: (result, args) => [Buffer.from(json(result, args), 'utf8')],
    innerCompact(result) {
      const w = new XmlWriter(false);
      fields(w, 0, result);
      return w.finishText();
    },
    wrapSoap: (version, inner) => [soapHeads[version], ...inner, soapTail],
    wrapHttp: (inner) => [httpHead, ...inner, httpTail],
  };
}
