/**
 * The bytes in a buffer of their own: a view into a larger one (a slab of Node's shared pool, a
 * zlib output chunk) would keep all of it alive while counted as the view.
 */
export function ownBytes(value: Buffer): Buffer {
  if (value.byteLength === value.buffer.byteLength) return value;
  const own = Buffer.allocUnsafeSlow(value.byteLength);
  value.copy(own);
  return own;
}
