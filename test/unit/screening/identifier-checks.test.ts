import { describe, expect, it } from 'vitest';
import { identifierProblem } from '../../../src/screening/identifier-checks.js';

describe('a query identifier that cannot be one of its kind is refused', () => {
  it.each([
    ['imo', '7406784', 'vessel'],
    ['imo', 'IMO 9187629', 'vessel'],
    // A company's IMO number has no check digit: refused only as a ship's.
    ['imo', '5342883', undefined],
    ['imo', '5342883', 'organization'],
    ['mmsi', '273385420', undefined],
    ['lei', '253400JT3MQWNDKMJE44', undefined],
    ['lei', '2534 00JT 3MQW NDKM JE44', undefined],
    ['bic', 'HAVIGB2L', undefined],
    ['bic', 'deut de ff 500', undefined],
    ['crypto_wallet', '12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h', undefined],
    ['crypto_wallet', 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh', undefined],
    ['call_sign', 'UBAO8', undefined],
    ['passport', 'A1', undefined],
    ['other', '42', undefined],
  ] as const)('accepts %s %j (query type %s)', (kind, value, queryType) => {
    expect(identifierProblem(kind, value, queryType)).toBeUndefined();
  });

  it.each([
    ['imo', '740678', undefined, 'must be an IMO number: 7 digits, after "IMO" or not (got 6 digits)'],
    ['imo', '74067845', undefined, 'must be an IMO number'],
    ['imo', 'IMO 740678A', undefined, 'must be an IMO number'],
    ['imo', '7406785', 'vessel', "is not a ship's IMO number"],
    ['imo', '5342883', 'vessel', "is not a ship's IMO number"],
    ['mmsi', '27338542', undefined, 'must be an MMSI: 9 digits (got 8 digits)'],
    ['lei', '851683897', undefined, 'must be an LEI: 20 letters and digits (got 9 digits)'],
    ['lei', '253400JT3MQWNDKMJE45', undefined, 'is not an LEI: its check digits'],
    ['bic', 'HA', undefined, 'must be a BIC'],
    ['bic', 'HAVI1B2L', undefined, 'must be a BIC'],
    ['bic', 'HAVIGB2LX', undefined, 'must be a BIC'],
    [
      'crypto_wallet',
      '1Gq',
      undefined,
      'is too short to be a wallet address: at least 25 characters (got 3)',
    ],
    [
      'crypto_wallet',
      '12QtD5BFwRsdNsAZY76UVE1xy/CGNTojH9h',
      undefined,
      'must be a wallet address: letters and digits only',
    ],
    ['call_sign', 'AB', undefined, 'must be a call sign'],
    ['passport', '\u200b\u00ad', undefined, 'must hold at least one letter or digit'],
    ['national_id', '--/--', undefined, 'must hold at least one letter or digit'],
  ] as const)('refuses %s %j (query type %s): %s', (kind, value, queryType, problem) => {
    expect(identifierProblem(kind, value, queryType)).toContain(problem);
  });
});
