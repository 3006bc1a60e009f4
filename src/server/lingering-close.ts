/** The node:http adapter's way of closing the connection of a refused upload. */
import type { Socket } from 'node:net';

/** How long, and for how many more bytes, a refused upload is drained before the connection is cut. */
const LINGER_MS = 2_000;
const LINGER_BYTES = 1024 * 1024;

/**
 * RFC 9112 §9.6: closing a connection while the client is still sending makes the TCP
 * stack answer with a reset, which can destroy the 413 before the client has read it.
 * So the connection of a refused upload is closed in stages: node ends it with
 * `destroySoon()` once the answer is written (its `Connection: close`); here that becomes
 * a half-close, and the full close follows when the client closes its side, LINGER_MS
 * pass or LINGER_BYTES more arrive (node's parser may have paused reading, so usually the
 * timer) — never after the rest of an endless body.
 */
export function closeInStages(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.writable) this.end();
    let drained = 0;
    const cut = () => this.destroy();
    const timer = setTimeout(cut, LINGER_MS);
    this.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > LINGER_BYTES) cut();
    });
    this.once('end', cut);
    this.once('close', () => clearTimeout(timer));
  };
}
