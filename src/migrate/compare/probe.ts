/**
 * Before comparing, each side is asked one SOAP 1.1 call (getBereich of id 0, a public
 * operation every installation offers): an address that does not answer, or answers
 * with something that is not a SOAP envelope (an HTML page: a wrong base URL, a login
 * page, a proxy's error), is reported at once rather than as thousands of failures.
 * A fault is fine: it is the service refusing an unknown id.
 */
import { OPERATIONS } from '../../contract/operations.ts';
import { encodeRequest } from '../../protocol/client-request.ts';
import { canonicalize } from '../../xml/c14n.ts';
import { mediaTypeOf } from './answer.ts';
import type { HttpSender } from './http-sender.ts';

const PROBE = OPERATIONS.find((op) => op.name === 'getBereich')!;

/** Undefined when the service answers SOAP; else why not, one line. */
export async function probeService(sender: HttpSender, namespace: string): Promise<string | undefined> {
  const request = encodeRequest('soap11', PROBE, { bereichID: 0 }, { namespace });
  const received = await sender.send({ ...request, body: Buffer.from(request.body, 'utf8') });
  if (received.kind === 'failed') return `cannot be reached: ${received.reason}`;
  const said = `a SOAP request to ${request.path} was answered ${received.status} with ${received.contentType || 'no Content-Type'}`;
  const type = mediaTypeOf(received.contentType);
  if (type !== 'text/xml' && type !== 'application/soap+xml') return `is not the service: ${said}`;
  try {
    const canonical = canonicalize(received.body?.toString('utf8') ?? '');
    if (!/^<([\w.-]+:)?Envelope[\s>]/.test(canonical))
      return `is not the service: ${said}, not a SOAP envelope`;
  } catch {
    return `is not the service: ${said}, which is not XML`;
  }
  return undefined;
}
