import { describe, expect, it } from 'vitest';
import { codePointLength, normaliseQuery } from '../../../src/screening/normalise-query.js';

describe('query normalisation', () => {
  it.each([
    ['  Acme   Trading\tLtd  ', 'acme trading ltd'],
    ['ＡＣＭＥ　ＣＯＲＰ', 'acme corp'],
    ['Jose\u0301 Mari\u0301a', 'josé maría'],
    ['İSTANBUL', 'i̇stanbul'],
    ['STRAẞE', 'strasse'],
    ['Straße', 'strasse'],
    ['ΟΔΥΣΣΕΥΣ', 'οδυσσευσ'],
    ['ﬁnance', 'finance'],
    ['Владимир ПУТИН', 'владимир путин'],
    ['Vla\u200bdimir Pu\u00adtin', 'vladimir putin'],
    ['\u202eniteP rimidalV', 'nitep rimidalv'],
    ['A\u0000B \u2066Co\u2069 \ufeff', 'ab co'],
    ['Pu\ufefftin', 'putin'],
    ['Pu\u{E0041}tin \u061cAli\u180e', 'putin ali'],
    ['Пу\u00adтин', 'путин'],
    ['Acme\tTrading\nLtd', 'acme trading ltd'],
    ['Ali \u200e\u200f Reza', 'ali reza'],
    ['\u0645\u06cc\u200c\u0631\u0636\u0627', '\u0645\u06cc\u200c\u0631\u0636\u0627'],
  ])('turns %j into %j', (input, expected) => {
    expect(normaliseQuery(input)).toBe(expected);
  });

  it('counts code points, not UTF-16 units', () => {
    expect(codePointLength('𝔸𝔹')).toBe(2);
    expect('𝔸𝔹'.length).toBe(4);
  });
});
