/**
 * What reports and logs show of a request, with its token replaced by `[token]`; and for
 * what `serve --shadow` writes, e-mail addresses (a subscriber's, in a request; a
 * contact's, in an answer) and anything shaped like a token replaced as well.
 */
import type { ReplayRequest } from './replay-request.ts';

export const TOKEN_SHOWN = '[token]';
export const EMAIL_SHOWN = '[e-mail]';

/** Request bodies are shown up to this many characters. */
const MAX_SHOWN_BODY = 16 * 1024;

export interface RequestView {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** An address as text, or percent-encoded in a query or form (`%40`). */
const EMAIL = /[\p{L}\p{N}._%+-]+(?:@|%40)[\p{L}\p{N}%-]+(?:\.[\p{L}\p{N}%-]+)+/gu;
const GUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

export function redactPersonal(text: string): string {
  return text.replace(EMAIL, EMAIL_SHOWN).replace(GUID, TOKEN_SHOWN);
}

/** The request as sent, its token shown as `[token]`; `personal` also hides e-mail addresses. */
export function viewOf(request: ReplayRequest, personal = false): RequestView {
  const sent = request.prepare(TOKEN_SHOWN);
  const hide = personal ? redactPersonal : (text: string) => text;
  let body = sent.body.toString('utf8');
  if (body.length > MAX_SHOWN_BODY)
    body = `${body.slice(0, MAX_SHOWN_BODY)}[${body.length - MAX_SHOWN_BODY} more characters]`;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(sent.headers)) headers[name] = hide(value);
  return { method: sent.method, path: hide(sent.path), headers, body: hide(body) };
}
