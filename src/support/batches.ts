/**
 * Cuts `items` into batches of at most `maxItems` items and, when given, about `maxBytes`
 * bytes by `bytesOf` (an item larger than that is a batch of its own), in order.
 */
export function* batches<T>(
  items: readonly T[],
  maxItems: number,
  maxBytes = Number.POSITIVE_INFINITY,
  bytesOf: (item: T) => number = () => 0,
): Generator<T[]> {
  let batch: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = bytesOf(item);
    if (batch.length > 0 && (batch.length === maxItems || bytes + size > maxBytes)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}
