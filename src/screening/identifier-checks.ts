import { normaliseIdentifier } from '../matching/index.js';
import type { QueryType } from './screening-result.js';

/**
 * Why a query's identifier cannot be one of its kind, or undefined when it can. Such a value could
 * match nothing of its kind, and an answer of `low` would read as a clean result: it is refused
 * instead, by a 422 naming the field. Checked on the value as matching compares it
 * (`normaliseIdentifier`: invisible characters, separators and an `IMO` prefix left out), so only
 * what no writing of the identifier could mean is refused:
 * - `imo`: 7 digits. A ship's IMO number ends with a check digit, a company's (the IMO company and
 *   registered owner number) does not: the check digit is checked when the query is a `vessel`.
 * - `mmsi`: 9 digits. `lei`: 20 letters and digits whose ISO 17442 check digits hold.
 * - `bic`: 8 or 11 letters and digits, the 5th and 6th letters (the country).
 * - `crypto_wallet`: letters and digits only, at least 25 of them (the shortest addresses in use).
 * - `call_sign`: 3 to 7 letters and digits.
 * - every kind: at least one letter or digit.
 */
export function identifierProblem(
  kind: string,
  value: string,
  queryType: QueryType | undefined,
): string | undefined {
  const plain = normaliseIdentifier(kind, value);
  if (plain === '') return 'must hold at least one letter or digit';
  switch (kind) {
    case 'imo':
      if (!/^\d{7}$/.test(plain))
        return `must be an IMO number: 7 digits, after "IMO" or not (got ${describe(plain)})`;
      if (queryType === 'vessel' && !imoCheckDigitHolds(plain))
        return "is not a ship's IMO number: its last digit is not the check digit of the first six";
      return undefined;
    case 'mmsi':
      return /^\d{9}$/.test(plain) ? undefined : `must be an MMSI: 9 digits (got ${describe(plain)})`;
    case 'lei':
      if (!/^[0-9A-Z]{18}\d{2}$/.test(plain))
        return `must be an LEI: 20 letters and digits (got ${describe(plain)})`;
      return leiCheckDigitsHold(plain)
        ? undefined
        : 'is not an LEI: its check digits (the last two) do not hold';
    case 'bic':
      return /^[0-9A-Z]{4}[A-Z]{2}[0-9A-Z]{2}(?:[0-9A-Z]{3})?$/.test(plain)
        ? undefined
        : `must be a BIC: 8 or 11 letters and digits, the 5th and 6th the country's letters (got ${describe(plain)})`;
    case 'crypto_wallet':
      if (!/^[0-9A-Za-z]+$/.test(plain)) return 'must be a wallet address: letters and digits only';
      return plain.length >= WALLET_MIN_CHARS
        ? undefined
        : `is too short to be a wallet address: at least ${WALLET_MIN_CHARS} characters (got ${plain.length})`;
    case 'call_sign':
      return /^[0-9A-Z]{3,7}$/.test(plain)
        ? undefined
        : `must be a call sign: 3 to 7 letters and digits (got ${describe(plain)})`;
    default:
      return undefined;
  }
}

/** The shortest addresses in use: Ripple's (25), then Bitcoin's base58 ones (26). */
const WALLET_MIN_CHARS = 25;

/** What the value holds once normalised: `6 digits`, `1 digit`, `9 characters`. */
function describe(plain: string): string {
  const unit = /^\d+$/.test(plain) ? 'digit' : 'character';
  return `${plain.length} ${unit}${plain.length === 1 ? '' : 's'}`;
}

/** A ship's IMO number: the first six digits weighted 7 to 2, summed; the last digit is the sum's last. */
function imoCheckDigitHolds(number: string): boolean {
  let sum = 0;
  for (let k = 0; k < 6; k++) sum += Number(number[k]) * (7 - k);
  return sum % 10 === Number(number[6]);
}

/** ISO 17442 (ISO 7064 MOD 97-10): letters as 10-35, the whole number modulo 97 is 1. */
function leiCheckDigitsHold(lei: string): boolean {
  let remainder = 0;
  for (const c of lei) {
    const digits = String(Number.parseInt(c, 36));
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1;
}
