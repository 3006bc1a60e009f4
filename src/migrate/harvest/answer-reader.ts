/**
 * Reads a SOAP 1.1 success answer as it streams in, by the contract that writes ours
 * (design.md: "the contract reads what it writes"): the operation's result wrapper and
 * every type below it, field by field, so a field added to the contract is read without
 * another edit. What the wire distinguishes is kept: a missing string element is null,
 * an empty one `""`; `xsi:nil="true"` is null; lists keep their order; text keeps its CR
 * (xml-tokenizer.ts). A binary's bytes go, decoded from base64 as they arrive, to a
 * target the caller opens for each one (`openBinary`), and the field holds that target.
 *
 * Anything the contract does not describe is an error naming it (AnswerError), so an
 * answer is read whole and exactly or not at all.
 */
import type { ChunkedBinary } from '../../contract/infer.ts';
import { OPERATIONS, type Operation, type OperationName, type ResultOf } from '../../contract/operations.ts';
import type { ArrayType, ComplexType, Field, ValueType } from '../../contract/schema.ts';
import { SOAP11_ENVELOPE_NS } from '../../protocol/namespaces.ts';
import { XmlSyntaxError, XmlTokenizer } from '../xml-tokenizer.ts';
import { Base64Decoder, Base64Error } from './base64-stream.ts';

/**
 * `malformed`: not well-formed XML, or not UTF-8; `envelope`: well-formed, but not a SOAP
 * answer to this operation (another root, a fault, no result); `contract`: the
 * operation's answer, but a value in it is not as the contract describes it;
 * `namespace`: the operation's answer in another namespace than the one asked for
 * (`foundNamespace` says which).
 */
export type AnswerErrorKind = 'malformed' | 'envelope' | 'contract' | 'namespace';

export class AnswerError extends Error {
  override readonly name = 'AnswerError';
  constructor(
    readonly kind: AnswerErrorKind,
    message: string,
    readonly foundNamespace?: string,
  ) {
    super(message);
  }
}

/**
 * Where a binary element's decoded bytes go. The field's value is the target itself, a
 * binary read in chunks like any other the contract's records hold.
 */
export interface BinaryTarget extends ChunkedBinary {
  /** False when the bytes are not wanted: then they are not even decoded. */
  readonly keeps: boolean;
  write(bytes: Buffer): void | Promise<void>;
  /** All bytes were written. */
  end(): Promise<void>;
}

/** Opens the target for a binary field of `owner` (its fields before this one are read already). */
export type OpenBinary = (owner: Readonly<Record<string, unknown>>, field: Field) => BinaryTarget;

/** Limits against an answer that is not what a service of this contract sends. */
const MAX_DEPTH = 32;
const MAX_TEXT = 64 * 1024 * 1024;
const MAX_ELEMENTS = 2_000_000;

/** A value element: `field` names the field of its parent it fills (undefined for list items and the result). */
type ValueFrame = { readonly field: string | undefined } & (
  | { readonly kind: 'complex'; readonly type: ComplexType; readonly value: Record<string, unknown> }
  | { readonly kind: 'array'; readonly type: ArrayType; readonly items: unknown[] }
  | { readonly kind: 'scalar'; readonly type: ValueType; text: string }
  | { readonly kind: 'binary'; readonly target: BinaryTarget; readonly decoder: Base64Decoder }
  | { readonly kind: 'nil' }
);

/** A start tag as the tokenizer reports it. */
interface Tag {
  uri: string;
  local: string;
  name: string;
  /** `xsi:nil="true"` (or `"1"`). */
  nil: boolean;
}

type Frame =
  | { readonly kind: 'soap'; readonly level: 'envelope' | 'body' | 'response' }
  | { readonly kind: 'skip' }
  | ValueFrame;

/** xs:int's lexical form (surrounding whitespace allowed), within its range. */
function readInt(text: string, where: string): number {
  const trimmed = text.trim();
  const value = /^[+-]?\d{1,10}$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isInteger(value) || value < -2147483648 || value > 2147483647) {
    throw new AnswerError('contract', `<${where}> is not an xs:int: ${JSON.stringify(trimmed.slice(0, 40))}`);
  }
  return value;
}

function readBoolean(text: string, where: string): boolean {
  const trimmed = text.trim();
  if (trimmed === 'true' || trimmed === '1') return true;
  if (trimmed === 'false' || trimmed === '0') return false;
  throw new AnswerError(
    'contract',
    `<${where}> is not an xs:boolean: ${JSON.stringify(trimmed.slice(0, 40))}`,
  );
}

function scalarValue(type: ValueType, text: string, where: string): unknown {
  if (type.kind === 'enum') {
    if (!type.values.includes(text)) throw new AnswerError('contract', `<${where}> is not a ${type.name}`);
    return text;
  }
  if (type.kind !== 'scalar') throw new Error(`not a scalar type: ${type.kind}`);
  switch (type.name) {
    case 'int':
      return readInt(text, where);
    case 'boolean':
      return readBoolean(text, where);
    case 'string':
    case 'guid':
      return text;
    case 'base64Binary':
      throw new Error('binaries are read by their target');
  }
}

/** A field the answer left out: null where the contract allows it (minOccurs 0 or nillable). */
function missingValue(f: Field, owner: ComplexType): unknown {
  if (!f.required || f.nillable) return null;
  throw new AnswerError('contract', `<${owner.name}> lacks <${f.name}>`);
}

const FIELDS = new WeakMap<ComplexType, ReadonlyMap<string, Field>>();

/** A complex type's fields by name, made once per type. */
function fieldsOf(type: ComplexType): ReadonlyMap<string, Field> {
  let fields = FIELDS.get(type);
  if (!fields) {
    fields = new Map(type.fields.map((f) => [f.name, f]));
    FIELDS.set(type, fields);
  }
  return fields;
}

/** The fields read, in the contract's order; a missing one is null where the contract allows it. */
function recordOf(type: ComplexType, read: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const f of type.fields)
    record[f.name] = Object.hasOwn(read, f.name) ? read[f.name] : missingValue(f, type);
  return record;
}

export function operationNamed(name: OperationName): Operation {
  const found = OPERATIONS.find((o) => o.name === name);
  if (!found) throw new Error(`no operation ${name}`);
  return found;
}

export class AnswerReader<N extends OperationName> {
  private readonly operation: Operation;
  private readonly parser = new XmlTokenizer({
    open: (uri, local, qname, nil) => {
      // One tag object, refilled: a frame is made from it at once and keeps nothing of it.
      const tag = this.tag;
      tag.uri = uri;
      tag.local = local;
      tag.name = qname;
      tag.nil = nil;
      return this.open(tag);
    },
    text: (text) => this.text(text),
    raw: (text) => this.binary(text),
    close: () => this.close(),
  });
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private readonly tag: Tag = { uri: '', local: '', name: '', nil: false };
  private readonly stack: Frame[] = [];
  private result: Record<string, unknown> | undefined;
  private readonly pending: Promise<void>[] = [];
  private elements = 0;
  private failure: Error | undefined;

  constructor(
    name: N,
    private readonly namespace: string,
    private readonly openBinary: OpenBinary,
  ) {
    this.operation = operationNamed(name);
  }

  /** The next piece of the answer's body; a promise only when a binary's target has to be waited for. */
  push(chunk: Buffer): void | Promise<void> {
    if (this.failure) throw this.failure;
    try {
      let text: string;
      try {
        text = this.decoder.decode(chunk, { stream: true });
      } catch {
        throw new AnswerError('malformed', 'the answer is not UTF-8');
      }
      const waiting = this.parser.write(text);
      if (waiting)
        return waiting.catch((error: unknown) => {
          throw this.fail(error);
        });
    } catch (error) {
      throw this.fail(error);
    }
  }

  /** The operation's result wrapper, e.g. `{ bereich: { name, bereichID } }`, once every binary is written. */
  async end(): Promise<ResultOf<N>> {
    if (this.failure) throw this.failure;
    try {
      let text: string;
      try {
        text = this.decoder.decode();
      } catch {
        throw new AnswerError('malformed', 'the answer is not UTF-8');
      }
      if (text.length > 0) this.parser.write(text);
      this.parser.close();
    } catch (error) {
      throw this.fail(error);
    }
    await Promise.all(this.pending);
    if (!this.result) throw new AnswerError('envelope', `the answer holds no <${this.operation.name}Result>`);
    // Read element by element against this operation's result type, every field checked
    // as it closed (values by their XSD type, missing ones only where minOccurs 0 or
    // nillable, binaries as their targets): what ResultOf<N> says it is.
    return this.result as ResultOf<N>;
  }

  private fail(error: unknown): Error {
    this.failure =
      error instanceof XmlSyntaxError
        ? new AnswerError('malformed', `not well-formed XML: ${error.message}`)
        : error instanceof Base64Error
          ? new AnswerError('contract', `a binary is not valid base64: ${error.message}`)
          : error instanceof Error
            ? error
            : new Error(String(error));
    return this.failure;
  }

  private binary(bytes: string): void | Promise<void> {
    const top = this.stack[this.stack.length - 1];
    if (top?.kind !== 'binary') throw new Error('binary bytes outside a binary element');
    if (!top.target.keeps) return;
    const decoded = top.decoder.push(bytes);
    return decoded.length > 0 ? top.target.write(decoded) : undefined;
  }

  /** Pushes the element's frame; true when its content is a binary's, for `binary`. */
  private open(tag: Tag): boolean {
    if (++this.elements > MAX_ELEMENTS) throw new AnswerError('contract', 'the answer has too many elements');
    if (this.stack.length >= MAX_DEPTH) throw new AnswerError('contract', 'the answer nests too deep');
    const frame = this.child(this.stack[this.stack.length - 1], tag);
    this.stack.push(frame);
    return frame.kind === 'binary';
  }

  private child(parent: Frame | undefined, tag: Tag): Frame {
    const ns = this.namespace;
    const op = this.operation.name;
    if (parent === undefined) {
      if (tag.uri === SOAP11_ENVELOPE_NS && tag.local === 'Envelope')
        return { kind: 'soap', level: 'envelope' };
      throw new AnswerError('envelope', `the answer is not a SOAP 1.1 envelope: its root is <${tag.name}>`);
    }
    switch (parent.kind) {
      case 'skip':
        return parent;
      case 'soap':
        if (parent.level === 'envelope') {
          if (tag.uri === SOAP11_ENVELOPE_NS && tag.local === 'Header') return { kind: 'skip' };
          if (tag.uri === SOAP11_ENVELOPE_NS && tag.local === 'Body') return { kind: 'soap', level: 'body' };
        } else if (parent.level === 'body') {
          if (tag.uri === SOAP11_ENVELOPE_NS && tag.local === 'Fault')
            throw new AnswerError('envelope', 'the answer is a SOAP fault');
          if (tag.local === `${op}Response`) {
            if (tag.uri !== ns)
              throw new AnswerError(
                'namespace',
                `the answer is in the namespace ${JSON.stringify(tag.uri)}, not ${JSON.stringify(ns)}`,
                tag.uri,
              );
            return { kind: 'soap', level: 'response' };
          }
        } else if (tag.uri === ns && tag.local === `${op}Result`) {
          if (this.result) throw new AnswerError('envelope', `the answer holds two <${op}Result>`);
          return { kind: 'complex', type: this.operation.result, value: {}, field: undefined };
        }
        throw new AnswerError('envelope', `unexpected <${tag.name}> in the SOAP answer to ${op}`);
      case 'complex': {
        const f = tag.uri === ns ? fieldsOf(parent.type).get(tag.local) : undefined;
        if (!f) throw new AnswerError('contract', `unexpected <${tag.name}> in <${parent.type.name}>`);
        if (Object.hasOwn(parent.value, f.name))
          throw new AnswerError('contract', `<${parent.type.name}> holds <${f.name}> twice`);
        return this.valueFrame(f.type, tag, f, parent.value);
      }
      case 'array':
        // ASMX writes a null item as nil; scoop's records cannot hold one, so no answer of it is read.
        if (tag.uri === ns && tag.local === parent.type.itemName) {
          if (tag.nil) throw new AnswerError('contract', `a nil <${tag.local}> in a list`);
          return this.valueFrame(parent.type.item, tag);
        }
        throw new AnswerError('contract', `unexpected <${tag.name}> in a list of <${parent.type.itemName}>`);
      case 'scalar':
      case 'binary':
      case 'nil':
        throw new AnswerError('contract', `unexpected <${tag.name}> inside a value`);
    }
  }

  private valueFrame(type: ValueType, tag: Tag, f?: Field, owner?: Record<string, unknown>): Frame {
    const field = f?.name;
    if (tag.nil) return { kind: 'nil', field };
    switch (type.kind) {
      case 'complex':
        return { kind: 'complex', type, value: {}, field };
      case 'array':
        return { kind: 'array', type, items: [], field };
      case 'enum':
        return { kind: 'scalar', type, text: '', field };
      case 'scalar':
        if (type.name === 'base64Binary' && f && owner)
          return { kind: 'binary', target: this.openBinary(owner, f), decoder: new Base64Decoder(), field };
        return { kind: 'scalar', type, text: '', field };
    }
  }

  private text(text: string): void {
    const top = this.stack[this.stack.length - 1];
    if (top?.kind === 'scalar') {
      if (top.text.length + text.length > MAX_TEXT)
        throw new AnswerError('contract', 'a text longer than 64 MiB');
      top.text += text;
    } else if (top?.kind === 'binary') {
      throw new AnswerError('contract', 'a binary element holds markup besides its text');
    } else if (top?.kind !== 'skip' && top !== undefined && /[^ \t\r\n]/.test(text)) {
      throw new AnswerError('contract', 'text where the contract has elements');
    }
  }

  private close(): void {
    const frame = this.stack.pop()!;
    if (frame.kind === 'skip' || frame.kind === 'soap') return;
    const parent = this.stack[this.stack.length - 1];
    if (parent?.kind === 'soap') {
      if (frame.kind === 'complex') this.result = recordOf(frame.type, frame.value);
      return;
    }
    const value = this.valueOf(frame);
    if (parent?.kind === 'array') parent.items.push(value);
    else if (parent?.kind === 'complex' && frame.field !== undefined) parent.value[frame.field] = value;
  }

  private valueOf(frame: ValueFrame): unknown {
    switch (frame.kind) {
      case 'nil':
        return null;
      case 'scalar':
        return scalarValue(frame.type, frame.text, frame.field ?? frame.type.name);
      case 'array':
        return frame.items;
      case 'binary':
        if (frame.target.keeps) frame.decoder.end();
        this.pending.push(frame.target.end());
        return frame.target;
      case 'complex':
        return recordOf(frame.type, frame.value);
    }
  }
}
