/** A copy of `array` with room for at least `need` elements (one and a half times as many as before, or more). */
export function grown<T extends Int32Array | Uint16Array | Uint8Array>(array: T, need: number): T {
  let length = Math.max(16, array.length);
  while (length < need) length = Math.ceil(length * 1.5);
  if (length === array.length) length = Math.ceil(length * 1.5);
  const copy = new (array.constructor as new (n: number) => T)(length);
  copy.set(array);
  return copy;
}
