/**
 * A call answered from its prepared answer: one lookup of the fragment and, when it shows
 * binaries, of their blobs' chunks (base64 stored as it is sent), all in one read of one
 * content version. The markup is sent as stored; the binding only adds its envelope.
 */
import type { Arguments, Operation } from '../contract/operations.ts';
import type { ContentStore, Snapshot } from '../store/content-store.ts';
import type { BodyPart, Layout } from '../xml/writer.ts';
import { splitFragment } from './fragment.ts';
import { ANSWERS_FORMAT, preparedOperation } from './prepared-operations.ts';

/**
 * The inside of the call's answer in `layout`, or undefined when it has none to send: then
 * its handler answers (an unknown id, an article outside its window, a resized image, a
 * store whose answers are of another format or were never prepared).
 */
export async function preparedInside(
  store: Pick<ContentStore, 'read'>,
  operation: Operation,
  args: Arguments,
  layout: Layout,
  now: number,
  expires: (at: number) => void,
): Promise<BodyPart[] | undefined> {
  const prepared = preparedOperation(operation.name);
  const key = prepared?.keyOf(args);
  if (prepared === undefined || key === undefined) return undefined;
  return store.read(async (snapshot) => {
    const answer = await snapshot.answer(prepared.name, key, layout, ANSWERS_FORMAT);
    if (!answer) return undefined;
    const { visibleFrom, visibleUntil } = answer;
    // bundle-format.md: outside sichtbarVon/sichtbarBis an article counts as not published.
    if ((visibleFrom !== null && now < visibleFrom) || (visibleUntil !== null && now > visibleUntil))
      return undefined;
    const { markup, blobIds } = splitFragment(answer.fragment);
    const binaries = blobIds.length === 0 ? [] : await binariesOf(snapshot, blobIds);
    if (!binaries) return undefined;
    if (visibleUntil !== null) expires(visibleUntil + 1);
    if (binaries.length === 0) return markup;
    const parts: BodyPart[] = [markup[0]!];
    for (let i = 0; i < binaries.length; i++) parts.push(binaries[i]!, markup[i + 1]!);
    return parts;
  });
}

/**
 * Each reference's binary as the writer would send it: the stored base64 of a binary of one
 * chunk, at hand; a larger one streamed from its chunks. Undefined if a blob is gone.
 */
async function binariesOf(snapshot: Snapshot, blobIds: readonly number[]): Promise<BodyPart[] | undefined> {
  const parts: BodyPart[] = [];
  for (const blobId of blobIds) {
    const blob = await snapshot.blob(blobId);
    if (!blob) return undefined;
    if (blob.base64) parts.push(blob.base64);
    else if (blob.bytes) parts.push(Buffer.from(Buffer.from(blob.bytes).toString('base64'), 'latin1'));
    else parts.push({ base64Of: blob.source });
  }
  return parts;
}
