/**
 * Two answers to one request, judged as the wire corpus judges ours against the
 * original's: successes are compared after XML canonicalisation (xml/c14n.ts, laid out a
 * line per element, so the original's indentation is no difference), with their status
 * and media type. A refusal on both sides is "both refused", whatever the statuses and
 * messages say (scoop's refusals are deliberately better than the original's,
 * docs/errors.md); a refusal on one side only, or two different successes, is a
 * difference. Without an answer from either side, or with two answers too large to keep
 * whose bytes differ, nothing can be said: failed.
 */
import { canonicalize } from '../../xml/c14n.ts';
import { type Answer, mediaTypeOf, type Received, sameBytes } from './answer.ts';
import { diffLines, type Hunk } from './diff.ts';

export type Outcome = 'same' | 'both refused' | 'different' | 'failed';

export interface Verdict {
  readonly outcome: Outcome;
  /** Why it failed, or what differs when the diff cannot show it. */
  readonly reason?: string;
  /** The differences of the two answers' comparable forms (status, media type, canonical body). */
  readonly hunks?: readonly Hunk[];
}

/** 4xx and 5xx: the service refused (the original answers nearly every refusal with 500). */
export function isRefusal(answer: Answer): boolean {
  return answer.status >= 400;
}

/** An answer as lines to compare and show: status, media type, then the body's canonical form. */
export function comparableForm(answer: Answer): string[] {
  const head = [`status ${answer.status}`, `content-type ${mediaTypeOf(answer.contentType)}`];
  if (!answer.body)
    return [...head, `[a body of ${answer.size} bytes, too large to keep; SHA-256 ${answer.sha256}]`];
  const text = answer.body.toString('utf8');
  if (text === '') return head;
  try {
    return [...head, ...canonicalize(text, { lines: true }).split('\n')];
  } catch {
    // Not XML (an HTML error page, plain text): compared as its lines.
    return [...head, '[not XML]', ...text.split(/\r?\n/)];
  }
}

export function judge(baseline: Received, candidate: Received): Verdict {
  if (baseline.kind === 'failed' || candidate.kind === 'failed') {
    const reasons = [
      baseline.kind === 'failed' ? `baseline: ${baseline.reason}` : undefined,
      candidate.kind === 'failed' ? `candidate: ${candidate.reason}` : undefined,
    ];
    return { outcome: 'failed', reason: reasons.filter((r) => r !== undefined).join('; ') };
  }
  const refused = [isRefusal(baseline), isRefusal(candidate)];
  if (refused[0] && refused[1]) return { outcome: 'both refused' };
  const sameHead =
    !refused[0] &&
    !refused[1] &&
    baseline.status === candidate.status &&
    mediaTypeOf(baseline.contentType) === mediaTypeOf(candidate.contentType);
  if (sameHead && sameBytes(baseline, candidate)) return { outcome: 'same' };
  if (sameHead && (!baseline.body || !candidate.body)) {
    return {
      outcome: 'failed',
      reason: `the answers (${baseline.size} and ${candidate.size} bytes) are too large to compare canonically, and their bytes differ`,
    };
  }
  const hunks = diffLines(comparableForm(baseline), comparableForm(candidate));
  if (hunks.length === 0) return { outcome: 'same' };
  return { outcome: 'different', hunks };
}
