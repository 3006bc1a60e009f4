/** Writes body parts to the response with backpressure, base64-encoding binaries as they stream. */
import type { ServerResponse } from 'node:http';
import { base64Chunks } from '../xml/binary.ts';
import { type BodyPart, bodyLength } from '../xml/writer.ts';

/** Resolves when the response can take more data, or when the client has gone away. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function write(res: ServerResponse, chunk: Buffer): Promise<void> {
  if (!res.write(chunk)) await drained(res);
}

/** `sent.bytesOut` is given the body's length as the head is written (for the request log). */
export async function sendParts(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string>>,
  parts: readonly BodyPart[],
  withBody: boolean,
  sent?: { bytesOut: number },
): Promise<void> {
  const length = bodyLength(parts);
  if (sent) sent.bytesOut = length;
  res.writeHead(status, { ...headers, 'content-length': String(length) });
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

/** The whole body as one buffer (binaries base64-encoded), for answers small enough to keep. */
export async function materialize(parts: readonly BodyPart[]): Promise<Buffer> {
  if (parts.length === 1 && Buffer.isBuffer(parts[0])) return parts[0];
  const out: Buffer[] = [];
  for (const part of parts) {
    if (Buffer.isBuffer(part)) out.push(part);
    else for await (const chunk of base64Chunks(part.base64Of)) out.push(chunk);
  }
  return Buffer.concat(out);
}
