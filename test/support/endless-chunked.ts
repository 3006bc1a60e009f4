/** A client that sends an endless chunked body while it reads, for the body limit's cut-off. */
import { connect } from 'node:net';
import { parseHead, type RawResponse } from './raw-http.ts';

export interface Streamed {
  readonly response: RawResponse;
  readonly sent: number;
}

/** The answer in `data`, once it is complete (by its Content-Length). */
function completeAnswer(data: Buffer): RawResponse | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const { status, headers } = parseHead(data.subarray(0, end).toString('latin1'));
  const length = Number(headers.get('content-length') ?? Number.NaN);
  if (!(data.length >= end + 4 + length)) return undefined;
  return { status, headers, body: data.subarray(end + 4, end + 4 + length) };
}

/**
 * Sends a chunked body of up to `cap` bytes, as a client that reads while it sends: it
 * stops sending once an answer arrives, and closes its side when the answer is complete.
 */
export function streamChunked(port: number, requestHead: string, cap: number): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const framed = Buffer.concat([
      Buffer.from(`${chunk.length.toString(16)}\r\n`),
      chunk,
      Buffer.from('\r\n'),
    ]);
    let sent = 0;
    let answered = false;
    const pump = () => {
      while (!answered && !socket.destroyed && sent < cap) {
        sent += chunk.length;
        if (!socket.write(framed)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    socket.setTimeout(20_000, () => socket.destroy(new Error('timed out')));
    socket.on('data', (data) => {
      received.push(data);
      answered = true;
      if (completeAnswer(Buffer.concat(received))) socket.end();
    });
    socket.on('error', () => {
      // A reset once the server has cut the connection: judged by what was received.
    });
    socket.on('close', () => {
      const answer = completeAnswer(Buffer.concat(received));
      if (answer) resolve({ response: answer, sent });
      else reject(new Error(`no complete answer after ${sent} bytes sent`));
    });
    socket.write(requestHead);
    pump();
  });
}
