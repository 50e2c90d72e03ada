import { ServiceError } from '../errors.js';

/**
 * The charsets a text body (JSON, CSV) may declare, by label, and the WHATWG encoding each is read
 * with. A body without a charset is UTF-8. ISO-8859-1 is read as windows-1252, its superset, as
 * browsers read it (the Encoding Standard): the two differ only in 0x80-0x9F, control characters
 * in ISO-8859-1 that no name contains. Any other charset is refused rather than guessed at: UTF-16
 * too, since JSON between systems is UTF-8 (RFC 8259) and a CSV in it is rare enough to ask for.
 */
const ENCODINGS: ReadonlyMap<string, 'utf-8' | 'us-ascii' | 'windows-1252'> = new Map([
  ['utf-8', 'utf-8'],
  ['utf8', 'utf-8'],
  ['unicode-1-1-utf-8', 'utf-8'],
  ['us-ascii', 'us-ascii'],
  ['ascii', 'us-ascii'],
  ['iso-8859-1', 'windows-1252'],
  ['iso8859-1', 'windows-1252'],
  ['iso_8859-1', 'windows-1252'],
  ['latin1', 'windows-1252'],
  ['l1', 'windows-1252'],
  ['windows-1252', 'windows-1252'],
  ['cp1252', 'windows-1252'],
]);

export const SUPPORTED_CHARSETS = 'utf-8 (the default), us-ascii, iso-8859-1 or windows-1252';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
// Decoders keep no state between whole-buffer calls, so one of each serves every request.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const WINDOWS_1252 = new TextDecoder('windows-1252');

/** The `charset` parameter of a Content-Type header, lower-cased; undefined when there is none. */
export function declaredCharset(contentType: string | undefined): string | undefined {
  for (const parameter of (contentType ?? '').split(';').slice(1)) {
    const [name = '', ...value] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    return value
      .join('=')
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

/**
 * A request body's text, read in the charset its Content-Type declares. Bytes that are not valid
 * in that charset are a 400 (never U+FFFD screened and counted as a name); a charset the service
 * does not read is a 415.
 */
export function bodyText(bytes: Buffer, contentType: string | undefined): string {
  const charset = declaredCharset(contentType) ?? 'utf-8';
  const encoding = ENCODINGS.get(charset);
  if (encoding === undefined) {
    throw new ServiceError(
      'unsupported-media-type',
      `The body's charset ${JSON.stringify(charset)} is not supported; send it in ${SUPPORTED_CHARSETS}.`,
    );
  }
  if (encoding === 'windows-1252') {
    // A UTF-8 byte order mark contradicts the declared charset: which one is right cannot be known.
    if (bytes.subarray(0, 3).equals(UTF8_BOM)) throw notIn(charset, 'it starts with a UTF-8 byte order mark');
    return WINDOWS_1252.decode(bytes);
  }
  if (encoding === 'us-ascii' && bytes.some((byte) => byte > 0x7f))
    throw notIn(charset, 'it holds bytes beyond ASCII');
  try {
    // A leading byte order mark is dropped, as the decoder does by default.
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw notIn(charset, 'it holds bytes that are not UTF-8');
  }
}

function notIn(charset: string, why: string): ServiceError {
  return new ServiceError('malformed-request', `The request body is not valid ${charset}: ${why}.`);
}
