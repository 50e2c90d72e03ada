/** One line of a byte stream, without its line break: its bytes, and its 1-based number. */
export interface ByteLine {
  line: number;
  bytes: Buffer;
}

/**
 * Splits a byte stream at its line breaks without decoding it, so a line can be spooled as the
 * bytes it came in. A line split between chunks is joined; the last line may lack its break (real
 * exports end without one). Empty lines are skipped but counted.
 */
export async function* byteLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ByteLine> {
  let carry: Buffer | undefined;
  let line = 0;
  for await (const chunk of chunks) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let end = bytes.indexOf(0x0a, start); end !== -1; end = bytes.indexOf(0x0a, start)) {
      line++;
      const piece = bytes.subarray(start, end);
      const whole = carry ? Buffer.concat([carry, piece]) : piece;
      carry = undefined;
      if (!isBlank(whole)) yield { line, bytes: whole };
      start = end + 1;
    }
    if (start < bytes.byteLength) {
      const rest = bytes.subarray(start);
      // A copy: the chunk's memory may be reused by the stream once it is handed on.
      carry = carry ? Buffer.concat([carry, rest]) : Buffer.from(rest);
    }
  }
  if (carry && !isBlank(carry)) yield { line: line + 1, bytes: carry };
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  return true;
}
