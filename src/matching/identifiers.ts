/**
 * Identifiers compared as values, not as written, by this one function on both sides: a list's
 * records (their index, the comparison, the grouping of flags into parties) and the query. What a
 * form, a copy from a PDF or a list happens to add is left out, so that a variant cannot evade:
 * - compatibility forms become their plain ones (NFKC: full-width `７４０６７８４` is `7406784`), and
 *   digits of any script are read as digits (Arabic-Indic `٧٤٠٦٧٨٤` too);
 * - characters that show nothing go (zero-width spaces, soft hyphens, joiners, byte order marks,
 *   bidirectional marks: Unicode's control and format characters);
 * - a document, register or IMO number keeps its letters and digits only, in upper case, with
 *   Cyrillic and Greek letters that look Latin read as Latin (`N 0123-4567`, `n01234567` and a
 *   Cyrillic `Н01234567` are one passport); an IMO number drops its `IMO` prefix, an MMSI its
 *   `MMSI`;
 * - a crypto address follows its chain's encoding: spaces and dashes inside it go (no address
 *   alphabet has them), base58 addresses (Bitcoin's `1...` and `3...`, Tron's `T...`) keep their
 *   case, which is part of the address; bech32 (`bc1...`, `ltc1...`) and hex (`0x...`, Ethereum and
 *   its kin) addresses are case-insensitive and compared in lower case.
 * `type` is a query's identifier kind or a record's (`crypto_wallet` and `crypto_address` are one).
 */
export function normaliseIdentifier(type: string, value: string): string {
  // Printable ASCII, as nearly every list value is, has nothing to normalise or leave out.
  const text = PRINTABLE_ASCII.test(value)
    ? value
    : plainDigits(value.normalize('NFKC')).replace(INVISIBLE, '');
  if (CRYPTO_KINDS.has(type)) {
    const address = text.replace(SPACES_AND_DASHES, '');
    return HEX_ADDRESS.test(address) || BECH32_ADDRESS.test(address) ? address.toLowerCase() : address;
  }
  const plain = latinLookalikes(text.toUpperCase()).replace(NOT_LETTER_OR_DIGIT, '');
  if (type === 'imo') return plain.replace(/^IMO(?:NUMBER|NO)?/, '');
  if (type === 'mmsi') return plain.replace(/^MMSI/, '');
  return plain;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const CRYPTO_KINDS: ReadonlySet<string> = new Set(['crypto_wallet', 'crypto_address']);
const HEX_ADDRESS = /^0x[0-9a-f]+$/i;
const BECH32_ADDRESS = /^[a-z]{1,83}1[02-9ac-hj-np-z]{6,}$/i;
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;
const SPACES_AND_DASHES = /[\s\p{Pd}]/gu;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]/gu;

/** Every script's decimal digits (ICU's numbering systems) to ASCII; NFKC leaves them as they are. */
const DIGITS: ReadonlyMap<string, string> = (() => {
  const digits = new Map<string, string>();
  for (const system of Intl.supportedValuesOf('numberingSystem')) {
    const format = new Intl.NumberFormat('en', { numberingSystem: system, useGrouping: false });
    if (format.resolvedOptions().numberingSystem !== system) continue;
    for (let d = 0; d <= 9; d++) {
      const digit = format.format(d);
      // Only decimal digits: an algorithmic system's numerals (roman `I`, Han `一`) are letters.
      if (/^\p{Nd}$/u.test(digit) && digit !== String(d)) digits.set(digit, String(d));
    }
  }
  return digits;
})();
const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/gu;

function plainDigits(text: string): string {
  return text.replace(NON_ASCII_DIGIT, (digit) => DIGITS.get(digit) ?? digit);
}

/**
 * Upper-case Cyrillic and Greek letters drawn as a Latin one, and that Latin letter (a homoglyph in
 * a number is a variant of it).
 */
const LOOKALIKES = 'АВЕКМНОРСТУХІЈЅԚԜΑΒΕΖΗΙΚΜΝΟΡΤΥΧ';
const LATIN = 'ABEKMHOPCTYXIJSQWABEZHIKMNOPTYX';
const LOOKALIKE = new RegExp(`[${LOOKALIKES}]`, 'gu');

function latinLookalikes(text: string): string {
  return text.replace(LOOKALIKE, (c) => LATIN[LOOKALIKES.indexOf(c)]!);
}
