/**
 * A name written letter by letter (`S a d d a m`, `S-a-d-d-a-m`, `S.a.d.d.a.m`) hides its words:
 * prepared as written, it is a row of initials that pairs with nothing. This reads such a run of
 * single letters as the word it spells. The same text can be initials (`J. R. R. Tolkien`), so the
 * spelled form is a second reading of the query, searched beside the name as written, never
 * instead of it.
 */

/** One letter with its combining marks (`é` written as e + U+0301 is one letter). */
const LETTER = String.raw`\p{L}\p{M}*`;
/**
 * A run: at least this many single letters, each from the next by one separator. Two letters
 * (`J R Smith`) are initials far more often than a spelled word, and a word of two letters is no
 * name's identity.
 */
export const SPELLED_RUN_MIN_LETTERS = 3;
/** What may stand between the letters of one run: one space, or punctuation with a space either side. */
const SEPARATOR = String.raw` ?[^\p{L}\p{M}\p{N}\s] ?| `;
const RUN = new RegExp(
  String.raw`(?<![\p{L}\p{M}\p{N}])${LETTER}(?:(?:${SEPARATOR})${LETTER}(?![\p{L}\p{M}\p{N}])){${SPELLED_RUN_MIN_LETTERS - 1},}`,
  'gu',
);
const PARTS = new RegExp(`(${LETTER})|${SEPARATOR}`, 'gu');

/**
 * `text` with every run of single letters written as the word it spells, or null when it has no
 * such run. The commonest separator of a run stands between the letters of a word and any other
 * between words: `S-a-d-d-a-m H-u-s-s-e-i-n` is `Saddam Hussein`. Letters all spaced alike
 * (`S a d d a m H u s s e i n`) give one word, which the matcher pairs with a listed name's two
 * words written together.
 */
export function spelledOut(text: string): string | null {
  let changed = false;
  const spelled = text.replace(RUN, (run) => {
    changed = true;
    const parts = [...run.matchAll(PARTS)].map((m) => m[1] ?? (m[0].trim() || ' '));
    const separators = parts.filter((_, k) => k % 2 === 1);
    const counts = new Map<string, number>();
    for (const s of separators) counts.set(s, (counts.get(s) ?? 0) + 1);
    const within = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
    return parts.map((part, k) => (k % 2 === 0 ? part : part === within ? '' : ' ')).join('');
  });
  return changed ? spelled : null;
}
