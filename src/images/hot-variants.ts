/**
 * The variants answered most recently, held in memory with their base64 kept
 * (xml/kept-base64.ts), up to a bound on bytes and text together: a variant asked for again
 * costs no file read and no encoding. The least recently used go first.
 */
import { base64Length } from '../xml/binary.ts';
import { keepBase64 } from '../xml/kept-base64.ts';
import type { OutputFormat } from './formats.ts';

export interface HotVariant {
  readonly format: OutputFormat;
  /** Never changed: their base64 is kept beside them. */
  readonly bytes: Uint8Array;
}

/** What holding a variant costs: its bytes and their base64. */
function costOf(bytes: Uint8Array): number {
  return bytes.byteLength + base64Length(bytes.byteLength);
}

export class HotVariants {
  /** In order of use, the least recent first. */
  private readonly entries = new Map<string, HotVariant>();
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  /** Bytes held, base64 included. */
  get bytes(): number {
    return this.total;
  }

  get(hash: string): HotVariant | undefined {
    const entry = this.entries.get(hash);
    if (entry) {
      this.entries.delete(hash);
      this.entries.set(hash, entry);
    }
    return entry;
  }

  /** Holds a variant (keeping its base64), unless it alone is more than the bound. */
  put(hash: string, format: OutputFormat, bytes: Uint8Array): void {
    this.delete(hash);
    const cost = costOf(bytes);
    if (cost > this.maxBytes) return;
    keepBase64(bytes);
    this.entries.set(hash, { format, bytes });
    this.total += cost;
    for (const oldest of this.entries.keys()) {
      if (this.total <= this.maxBytes) break;
      this.delete(oldest);
    }
  }

  delete(hash: string): void {
    const entry = this.entries.get(hash);
    if (!entry) return;
    this.entries.delete(hash);
    this.total -= costOf(entry.bytes);
  }
}
