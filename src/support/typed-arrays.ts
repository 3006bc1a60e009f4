/** A typed array of `size` elements holding `from`'s at its start: an index's growth. */
export function grown<T extends Float64Array | Uint32Array | Int32Array>(from: T, size: number): T {
  const to = new (from.constructor as new (length: number) => T)(size);
  to.set(from);
  return to;
}
