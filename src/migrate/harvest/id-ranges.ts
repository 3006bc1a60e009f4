/**
 * The `IDS` syntax of `scoop harvest` (docs/migration.md): ids and inclusive ranges,
 * comma-separated, e.g. `1-5000,7000-7100,2147483647`. The original has no list
 * operations, so the operator names the ranges. They are kept as ranges, sorted and
 * merged (an id named twice is asked once), and walked lazily: a range of a million ids
 * costs two numbers, never a million.
 */

export interface IdRange {
  readonly first: number;
  readonly last: number;
}

export class IdRangeError extends Error {
  override readonly name = 'IdRangeError';
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const EXAMPLE = 'e.g. 1-5000,7000-7100,2147483647';
/** `N` or `N-M`, each an optionally negative decimal integer (xs:int ids may be negative). */
const ITEM = /^(-?\d+)(?:-(-?\d+))?$/;

function checkId(text: string, item: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < INT32_MIN || value > INT32_MAX) {
    throw new IdRangeError(
      `${JSON.stringify(item)} is outside the xs:int range (${INT32_MIN} to ${INT32_MAX})`,
    );
  }
  return value;
}

/** Sorted, merged ranges; throws IdRangeError naming the item that is wrong. */
export function parseIdRanges(text: string): IdRange[] {
  const items = text.split(',').map((item) => item.trim());
  if (items.every((item) => item === '')) throw new IdRangeError(`is empty (${EXAMPLE})`);
  const ranges: IdRange[] = [];
  for (const item of items) {
    if (item === '') throw new IdRangeError(`has an empty item (${EXAMPLE})`);
    const m = ITEM.exec(item.replace(/\s+/g, ''));
    if (!m) throw new IdRangeError(`${JSON.stringify(item)} is not an id or a range (${EXAMPLE})`);
    const first = checkId(m[1]!, item);
    const last = m[2] === undefined ? first : checkId(m[2], item);
    if (last < first) throw new IdRangeError(`${JSON.stringify(item)} ends before it starts`);
    ranges.push({ first, last });
  }
  ranges.sort((a, b) => a.first - b.first);
  const merged: IdRange[] = [];
  for (const range of ranges) {
    const previous = merged[merged.length - 1];
    if (previous && range.first <= previous.last + 1) {
      merged[merged.length - 1] = { first: previous.first, last: Math.max(previous.last, range.last) };
    } else merged.push(range);
  }
  return merged;
}

export function countIds(ranges: readonly IdRange[]): number {
  return ranges.reduce((sum, r) => sum + (r.last - r.first + 1), 0);
}

/** The ids from the `skip`-th on (0-based), in ascending order. */
export function* idsFrom(ranges: readonly IdRange[], skip = 0): Generator<number> {
  let left = skip;
  for (const range of ranges) {
    const size = range.last - range.first + 1;
    if (left >= size) {
      left -= size;
      continue;
    }
    for (let id = range.first + left; id <= range.last; id++) yield id;
    left = 0;
  }
}

/** The canonical text of merged ranges (`1-3,7`), for the harvest's record of what it was asked. */
export function formatIdRanges(ranges: readonly IdRange[]): string {
  return ranges.map((r) => (r.first === r.last ? `${r.first}` : `${r.first}-${r.last}`)).join(',');
}
