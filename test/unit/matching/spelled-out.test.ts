import { describe, expect, it } from 'vitest';
import { spelledOut } from '../../../src/matching/spelled-out.js';

describe('a name written letter by letter', () => {
  it('is read as the words it spells, split where the separator between letters changes', () => {
    expect(spelledOut('S-a-d-d-a-m H-u-s-s-e-i-n')).toBe('Saddam Hussein');
    expect(spelledOut('S.a.d.d.a.m H.u.s.s.e.i.n')).toBe('Saddam Hussein');
    expect(spelledOut('S_a_d_d_a_m/H_u_s_s_e_i_n')).toBe('Saddam Hussein');
    expect(spelledOut('s . a . d . d . a . m')).toBe('saddam');
  });

  it('gives one word when every letter is spaced alike, and keeps the words around a run', () => {
    expect(spelledOut('S a d d a m H u s s e i n')).toBe('SaddamHussein');
    expect(spelledOut('Saddam H u s s e i n')).toBe('Saddam Hussein');
  });

  it('spells letters of any script, with their accents', () => {
    expect(spelledOut('ص د ا م')).toBe('صدام');
    expect(spelledOut('e\u0301 c o l e')).toBe('e\u0301cole');
  });

  it('has nothing to say of a name without a run of three single letters or more', () => {
    expect(spelledOut('Saddam Hussein')).toBeNull();
    expect(spelledOut('J R Smith')).toBeNull();
    expect(spelledOut('Bank Melli Iran')).toBeNull();
    expect(spelledOut('Flight 7 A B')).toBeNull();
  });
});
