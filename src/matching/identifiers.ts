/**
 * Identifiers compared as values, not as written: case, spaces, dashes, dots and slashes are how a
 * form or a list happens to write a passport or company number (`N 0123-4567`, `n01234567`).
 * Crypto addresses follow their chain's own rules instead: base58 addresses (Bitcoin's `1...` and
 * `3...`, Tron's `T...`) are case-sensitive and kept as written; bech32 (`bc1...`, `ltc1...`) is
 * case-insensitive and compared in lower case; hex addresses (`0x...`, Ethereum and its kin) are
 * compared in lower case.
 */
const CRYPTO_TYPES: ReadonlySet<string> = new Set(['crypto_wallet', 'crypto_address']);
const HEX_ADDRESS = /^0x[0-9a-f]+$/i;
const BECH32_ADDRESS = /^[a-z]{1,83}1[02-9ac-hj-np-z]{6,}$/i;

export function normaliseIdentifier(type: string, value: string): string {
  const trimmed = value.trim();
  if (CRYPTO_TYPES.has(type)) {
    if (HEX_ADDRESS.test(trimmed) || BECH32_ADDRESS.test(trimmed)) return trimmed.toLowerCase();
    return trimmed;
  }
  const plain = trimmed.toUpperCase().replace(/[\s\-./]/g, '');
  // IMO numbers are often written with their prefix (`IMO 9187629`); lists keep the number.
  return type === 'imo' ? plain.replace(/^IMO/, '') : plain;
}
