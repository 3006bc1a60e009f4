/**
 * What came back from one side: an answer (status, media type, and its body — kept whole
 * up to a bound, beyond it only its length and SHA-256, so a 200 MB attachment is compared
 * without being held), or why there is none.
 */
import { createHash, type Hash } from 'node:crypto';

export interface Answer {
  readonly kind: 'answer';
  readonly status: number;
  /** The status line's reason phrase, as sent. */
  readonly reason: string;
  /** The Content-Type as sent ('' when none). */
  readonly contentType: string;
  readonly size: number;
  /** The whole body, when it is at most the bound kept. */
  readonly body: Buffer | undefined;
  /** Hex SHA-256 of the body, when it was not kept. */
  readonly sha256: string | undefined;
}

export interface Failure {
  readonly kind: 'failed';
  /** One line: `connection refused (ECONNREFUSED)`, `no complete answer within 10 s`. */
  readonly reason: string;
}

export type Received = Answer | Failure;

/** Collects a body as it arrives: chunks up to `keepBytes`, then a running hash instead. */
export class BodyCollector {
  private chunks: Buffer[] = [];
  private hash: Hash | undefined;
  private size = 0;

  constructor(private readonly keepBytes: number) {}

  add(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.hash) {
      this.hash.update(chunk);
      return;
    }
    this.chunks.push(chunk);
    if (this.size > this.keepBytes) {
      this.hash = createHash('sha256');
      for (const kept of this.chunks) this.hash.update(kept);
      this.chunks = [];
    }
  }

  answer(status: number, reason: string, contentType: string): Answer {
    return {
      kind: 'answer',
      status,
      reason,
      contentType,
      size: this.size,
      body: this.hash ? undefined : Buffer.concat(this.chunks),
      sha256: this.hash?.digest('hex'),
    };
  }
}

function sha256Of(answer: Answer): string {
  return answer.sha256 ?? createHash('sha256').update(answer.body!).digest('hex');
}

/** Whether two bodies are the same bytes. */
export function sameBytes(a: Answer, b: Answer): boolean {
  if (a.size !== b.size) return false;
  if (a.body && b.body) return a.body.equals(b.body);
  return sha256Of(a) === sha256Of(b);
}

/** `type/subtype`, lower-case, without parameters. */
export function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

/** `HTTP 200 OK, text/xml; charset=utf-8, 317 bytes` or `failed: …`. */
export function statusLine(received: Received): string {
  if (received.kind === 'failed') return `failed: ${received.reason}`;
  const type = received.contentType === '' ? 'no Content-Type' : received.contentType;
  return `HTTP ${received.status}${received.reason ? ` ${received.reason}` : ''}, ${type}, ${received.size} bytes`;
}
