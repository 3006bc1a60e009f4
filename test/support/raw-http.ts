/** Sends raw request bytes over TCP and parses the response, so wire tests control every byte. */
import { connect } from 'node:net';

export interface RawResponse {
  readonly status: number;
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Buffer;
}

export function parseHead(head: string): { status: number; headers: Map<string, string> } {
  const lines = head.split(/\r?\n/);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1]);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status, headers };
}

export function sendRaw(port: number, request: Buffer, timeoutMs = 10_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    // RFC 9110 §9.3.2: a response to HEAD has no content, whatever Content-Length says.
    const headOnly = request.subarray(0, 5).toString('latin1') === 'HEAD ';
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return;
      const { status, headers } = parseHead(all.subarray(0, end).toString('latin1'));
      const length = headers.get('content-length');
      const body = headOnly ? Buffer.alloc(0) : all.subarray(end + 4);
      if (!headOnly && length !== undefined && body.length < Number(length)) return;
      done = true;
      socket.destroy();
      resolve({
        status,
        headers,
        body: length !== undefined && !headOnly ? body.subarray(0, Number(length)) : body,
      });
    };
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      if (!done) reject(new Error('timed out waiting for the response'));
    });
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      finish();
    });
    socket.on('end', () => {
      finish();
      if (!done) reject(new Error(`connection closed after ${Buffer.concat(chunks).length} bytes`));
    });
    socket.on('error', (error) => {
      if (!done) {
        finish();
        if (!done) reject(error);
      }
    });
    socket.write(request);
  });
}
