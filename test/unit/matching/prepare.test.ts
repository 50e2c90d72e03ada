import { describe, expect, it } from 'vitest';
import { prepareName } from '../../../src/matching/prepare.js';

const key = (name: string, type: 'person' | 'entity' = 'person') => prepareName(name, type).key;
const classes = (name: string, type: 'person' | 'entity') => prepareName(name, type).tokens.map((t) => t.cls);

describe('name preparation', () => {
  it('transliterates Cyrillic and keeps the original-script form', () => {
    const p = prepareName('Владимир Путин', 'person');
    expect(p.script).toBe('cyrillic');
    expect(p.tokens.map((t) => t.text)).toEqual(['VLADIMIR', 'PUTIN']);
    expect(p.original.map((t) => t.text)).toEqual(['владимир', 'путин']);
  });

  it('transliterates Arabic to a consonant skeleton and marks its tokens as abjad', () => {
    const p = prepareName('محمد علي', 'person');
    expect(p.script).toBe('arabic');
    expect(p.tokens.map((t) => t.text)).toEqual(['MHMD', 'LY']);
    expect(p.tokens.every((t) => t.abjad)).toBe(true);
  });

  it('splits Chinese names into one token per syllable', () => {
    expect(prepareName('习近平', 'person').tokens.map((t) => t.text)).toEqual(['XI', 'JIN', 'PING']);
  });

  it('transliterates Greek and strips accents from Latin letters', () => {
    expect(prepareName('Κυριάκος Μητσοτάκης', 'person').tokens.map((t) => t.text)).toEqual([
      'KYRIAKOS',
      'MITSOTAKIS',
    ]);
    expect(key('François Hollande')).toBe('FRANCOIS HOLLANDE');
    expect(key('Aleksandar Vučić')).toBe('ALEKSANDAR VUCIC');
  });

  it('applies NFKC and case folding so full-width and differently cased names prepare alike', () => {
    expect(key('ＰＵＴＩＮ vladimir')).toBe(key('PUTIN VLADIMIR'));
  });

  it('reorders SURNAME, Given Names and drops honorifics for persons', () => {
    expect(key('PUTIN, Vladimir Vladimirovich')).toBe('VLADIMIR VLADIMIROVICH PUTIN');
    expect(key('Mr. Rami Makhlouf')).toBe('RAMI MAKHLOUF');
    expect(key('Dr Ali Akbar Velayati')).toBe('ALI AKBAR VELAYATI');
  });

  it("removes apostrophes without splitting, so O'Brien and OBrien prepare alike", () => {
    expect(key("O'Brien")).toBe(key('OBrien'));
  });

  it('maps legal forms in several languages to canonical class tokens', () => {
    expect(key('Siemens Aktiengesellschaft', 'entity')).toBe(key('Siemens AG', 'entity'));
    expect(key('Volkswagen Bank G.m.b.H.', 'entity')).toBe(key('Volkswagen Bank GmbH', 'entity'));
    expect(key('Stripe LLC', 'entity')).toBe(key('Stripe Limited Liability Company', 'entity'));
    expect(key('OAO Gazprom', 'entity')).toBe(key('Open Joint Stock Company Gazprom', 'entity'));
    expect(key('ООО Ромашка', 'entity').startsWith('<LLC> ')).toBe(true);
    expect(classes('Siemens AG', 'entity')).toEqual(['word', 'legal']);
  });

  it('keeps legal-form words as ordinary words in person names', () => {
    expect(classes('Sa Ag', 'person')).toEqual(['word', 'word']);
  });

  it('keeps numbers as number tokens, ordinals and Roman numerals of organisations included', () => {
    expect(prepareName('ALPHA 1', 'entity').tokens.map((t) => [t.text, t.cls])).toEqual([
      ['ALPHA', 'word'],
      ['1', 'number'],
    ]);
    expect(key('1st International Bank', 'entity')).toBe(key('First International Bank', 'entity'));
    expect(key('Citigroup Capital Trust II', 'entity')).toBe('CITIGROUP CAPITAL TRUST 2');
  });

  it('joins dotted acronyms in organisation names', () => {
    expect(key('A.B.C. Company', 'entity')).toBe(key('ABC Company', 'entity'));
    expect(key('J.P. Morgan & Co.', 'entity')).toBe('JP MORGAN AND <CO>');
  });

  it('reads a name written twice or more in a row as one name, and repeated initials as initials', () => {
    expect(key('Saddam Hussein Saddam Hussein Saddam Hussein')).toBe('SADDAM HUSSEIN');
    expect(key('Sergey Sergey Shoigu')).toBe('SERGEY SHOIGU');
    expect(key('Bank Melli Bank Melli Iran', 'entity')).toBe('BANK MELLI IRAN');
    expect(key('Iran Bank Melli Bank Melli', 'entity')).toBe('IRAN BANK MELLI');
    expect(key('J. R. R. Tolkien')).toBe('J R R TOLKIEN');
  });
});
