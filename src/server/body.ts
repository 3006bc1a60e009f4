/** Reads a request body under a size cap, without holding more than the cap. */
import type { IncomingMessage } from 'node:http';
import { ScoopError } from '../contract/errors.ts';

export async function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    throw new ScoopError('BODY_TOO_LARGE', `The request body exceeds the limit of ${maxBytes} bytes.`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      throw new ScoopError('BODY_TOO_LARGE', `The request body exceeds the limit of ${maxBytes} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}
