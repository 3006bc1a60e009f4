/** Writes body parts to the response with backpressure, base64-encoding binaries as they stream. */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { base64Chunks } from '../xml/binary.ts';
import { type BodyPart, bodyLength } from '../xml/writer.ts';

async function write(res: ServerResponse, chunk: Buffer): Promise<void> {
  // A client that goes away never drains; 'close' ends the wait instead.
  if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
}

export async function sendParts(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  parts: readonly BodyPart[],
  withBody: boolean,
): Promise<void> {
  res.writeHead(status, { ...headers, 'content-length': String(bodyLength(parts)) });
  if (!withBody) {
    res.end();
    return;
  }
  if (parts.length === 1 && Buffer.isBuffer(parts[0])) {
    res.end(parts[0]);
    return;
  }
  for (const part of parts) {
    if (res.destroyed) return;
    if (Buffer.isBuffer(part)) await write(res, part);
    else for await (const chunk of base64Chunks(part.base64Of)) await write(res, chunk);
  }
  res.end();
}
