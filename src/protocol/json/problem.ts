/**
 * Refusals of the JSON API as RFC 9457 problem details (`application/problem+json`):
 * `type` names the catalogue code (a URN: stable, and not a link a client would follow),
 * `title` is the code's summary, which never changes between occurrences (§3.1.3), and
 * `detail` the message of this occurrence; `code` is the catalogue code itself, the one
 * clients key on, as on every binding. The status is the one HTTP GET answers with.
 */
import type { ScoopError } from '../../contract/errors.ts';
import type { RenderedError } from '../faults.ts';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
export const PROBLEM_TYPE_PREFIX = 'urn:scoop:error:';

export function renderProblem(error: ScoopError): RenderedError {
  const { status, summary } = error.spec;
  const body = JSON.stringify({
    type: `${PROBLEM_TYPE_PREFIX}${error.code}`,
    title: summary,
    status,
    detail: error.message,
    code: error.code,
  });
  const headers: Record<string, string> = {};
  // RFC 6750 §3: a 401 names the Bearer scheme.
  if (error.code === 'AUTH_FAILED') headers['www-authenticate'] = 'Bearer realm="scoop"';
  return { status, contentType: PROBLEM_MEDIA_TYPE, body: Buffer.from(body, 'utf8'), headers };
}
