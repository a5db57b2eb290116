/** Number columns indexed by slot (the memory store and its text arena keep one value per task). */

type Column = Uint8Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;

/**
 * `values`, or a copy doubled as often as needed to hold index `slot` (amortized: one copy per
 * doubling, not per task).
 */
export function withRoom<T extends Column>(values: T, slot: number, make: (size: number) => T): T {
  if (slot < values.length) return values;
  let size = Math.max(1, values.length);
  while (size <= slot) size *= 2;
  const grown = make(size);
  grown.set(values);
  return grown;
}
