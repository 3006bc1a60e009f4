/**
 * A prepared answer's fragment as stored: the markup of the answer's inside, with each
 * binary (an attachment's or image's data) left out and a reference to its blob in its
 * place, so a file's base64 is stored once, with its blob, and never copied into answers;
 * a request reads the blob (and its one chunk) by id, not the record it belongs to. A
 * reference is `NUL blob-id NUL`: NUL never occurs in XML (XML 1.0 §2.2), so the markup
 * needs no escaping around it. It is stored in the compact layout (SOAP's) only.
 */
import type { BinarySource } from '../xml/binary.ts';
import { indentMarkup } from '../xml/indent.ts';
import type { Layout } from '../xml/writer.ts';

const NUL = 0;

/**
 * A stored fragment in `layout`: the indented one (HTTP GET/POST) is made from it, a level
 * in, under the answer's root element, as XmlWriter lays it out in http()'s envelope.
 * Undefined for markup no import of this build wrote (a damaged row): then it is not sent,
 * and the operation's handler answers, as for an answer not prepared.
 */
export function inLayout(stored: Buffer, layout: Layout): Buffer | undefined {
  if (layout === 'compact') return stored;
  try {
    return indentMarkup(stored, 1);
  } catch {
    return undefined;
  }
}

/** A record's binary as an import renders it: only its size, and which blob it is. */
export class BinaryReference implements BinarySource {
  /** Written in the markup as it is (xml/writer.ts), so the fragment is one text. */
  readonly placeholder: string;

  constructor(
    readonly blobId: number,
    readonly size: number,
  ) {
    this.placeholder = `\u0000${blobId}\u0000`;
  }

  // biome-ignore lint/correctness/useYield: never read; the fragment keeps only the reference
  async *chunks(): AsyncGenerator<Uint8Array> {
    throw new Error(`blob ${this.blobId} is a reference, not content`);
  }
}

/**
 * The fragment cut at its references: markup and blob ids alternate, starting and ending
 * with markup (possibly empty). A fragment without binaries is one piece, not copied.
 */
export function splitFragment(fragment: Buffer): { markup: Buffer[]; blobIds: number[] } {
  const markup: Buffer[] = [];
  const blobIds: number[] = [];
  let from = 0;
  for (let at = fragment.indexOf(NUL); at !== -1; at = fragment.indexOf(NUL, from)) {
    const end = fragment.indexOf(NUL, at + 1);
    if (end === -1) throw new Error('a prepared answer ends inside a reference');
    markup.push(fragment.subarray(from, at));
    const id = Number(fragment.toString('latin1', at + 1, end));
    if (!Number.isSafeInteger(id)) throw new Error('a prepared answer holds a bad reference');
    blobIds.push(id);
    from = end + 1;
  }
  markup.push(from === 0 ? fragment : fragment.subarray(from));
  return { markup, blobIds };
}
