/**
 * The worker thread of file-encoder.ts: encodes one file at a time, as asked, and hands
 * the chunks back without copying them (each in an ArrayBuffer of its own, transferred).
 */
import { parentPort } from 'node:worker_threads';
import { STORED_INPUT_BYTES } from './blob-chunks.ts';
import { BundleFileSource } from './bundle/bundle-file.ts';
import { sendError } from './bundle/sent-error.ts';
import { encodeWhole } from './file-chunks.ts';
import type { EncodeReply, EncodeRequest } from './file-encoder.ts';

const port = parentPort;
if (!port) throw new Error('encode-worker.ts runs as a worker thread (file-encoder.ts)');

const scratch = Buffer.allocUnsafe(STORED_INPUT_BYTES);

/** A chunk's bytes alone in an ArrayBuffer, to transfer: a small chunk may share Node's pool. */
function own(chunk: Buffer): ArrayBuffer {
  const { buffer } = chunk;
  if (buffer instanceof ArrayBuffer && chunk.byteOffset === 0 && chunk.byteLength === buffer.byteLength)
    return buffer;
  const copy = new ArrayBuffer(chunk.byteLength);
  new Uint8Array(copy).set(chunk);
  return copy;
}

async function reply({ id, file }: EncodeRequest): Promise<EncodeReply> {
  try {
    const blob = await encodeWhole(
      { ...file, source: BundleFileSource.described(file.source) },
      () => undefined,
      scratch,
    );
    return { id, chunks: blob.chunks.map(own) };
  } catch (error) {
    return { id, ...sendError(error) };
  }
}

// One file at a time, in the order asked: they share the scratch buffer.
let queue = Promise.resolve();
port.on('message', (request: EncodeRequest) => {
  queue = queue.then(async () => {
    const answer = await reply(request);
    port.postMessage(answer, 'chunks' in answer ? [...answer.chunks] : []);
  });
});
