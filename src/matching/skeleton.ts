/**
 * Consonant skeleton of an upper-case ASCII token. Arabic and Hebrew transliterate to consonants
 * only (`محمد` -> `MHMD`), so a Latin spelling is compared to them through its own skeleton
 * (`MOHAMMED` -> `MHMD`). W and Y are dropped because the scripts use them for long vowels, V is
 * read as W for the same reason (Hebrew vav), and doubled consonants collapse (shadda is unwritten).
 */
export function consonantSkeleton(text: string): string {
  let out = '';
  for (const ch of text) {
    if ('AEIOUYWV'.includes(ch)) continue;
    if (out.length > 0 && out[out.length - 1] === ch) continue;
    out += ch;
  }
  return out;
}
