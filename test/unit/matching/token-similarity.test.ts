import { describe, expect, it } from 'vitest';
import { canAnchor } from '../../../src/matching/anchors.js';
import { prepareName } from '../../../src/matching/prepare.js';
import { anchoredWordSimilarity, tokenSimilarity } from '../../../src/matching/token-similarity.js';
import { Vocabulary } from '../../../src/matching/vocabulary.js';

describe('word similarity read from the vocabulary buffers', () => {
  it('equals the token similarity of every pair of words: identical, equivalent, fuzzy, abjad skeletons', () => {
    const vocabulary = new Vocabulary();
    const names = [
      'Mohammed Muhammad Mohamed Mohamad Ahmed Ahmad',
      'William Bill Robert Bob Vladimir Wladimir',
      'Hassan Hasan Hussein Husayn Saleh Sahna',
      'محمد أحمد حسن عبدالرحمن',
      'Владимир Путин',
      'Kowalski Kawasaki Smith Schmidt Al Qaida Alqaida',
    ];
    for (const name of names) prepareName(name, 'person', vocabulary.factory);
    const words = vocabulary.tokens.filter(canAnchor);
    expect(words.some((t) => t.abjad)).toBe(true);
    expect(words.some((t) => t.groups.length > 0)).toBe(true);
    // Query words are prepared as a query is, outside the vocabulary.
    const queries = names.flatMap((name) => prepareName(name, 'person').tokens).filter(canAnchor);
    expect(queries.every((t) => t.id === -1)).toBe(true);
    for (const query of queries) {
      for (const word of words) {
        expect(anchoredWordSimilarity(query, vocabulary.codes, vocabulary.tokens, word.id)).toBe(
          tokenSimilarity(query, word, true),
        );
      }
    }
  });
});
