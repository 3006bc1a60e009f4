/**
 * The base64 text of a binary of several stored chunks, read whole (cache/base64-cache.ts
 * `readsNow`) where it would otherwise stream. Such a text stands for its binary in an
 * answer's entity tag (server/etag.ts) as a streamed one does, by content id and size, so an
 * answer has one tag however its text was read: from the store, a file, or the answer pack.
 */

export interface TextOrigin {
  readonly contentId: string;
  readonly size: number;
}

const origins = new WeakMap<Buffer, TextOrigin>();

/** Marks `text` as the whole base64 text of the binary `origin` names; returns `text` itself. */
export function markWholeText(text: Buffer, origin: TextOrigin): Buffer {
  origins.set(text, origin);
  return text;
}

/** The binary `text` is the whole text of, if `markWholeText` marked it. */
export function wholeTextOrigin(text: Buffer): TextOrigin | undefined {
  return origins.get(text);
}
