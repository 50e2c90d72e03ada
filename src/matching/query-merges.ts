import { type BoundQuery, WORD } from './bound-query.js';
import type { CandidateCollector } from './candidates.js';
import {
  ABJAD_SKELETON_SPACE,
  MAX_PROBES,
  type MergePostings,
  mergeKey,
  PAIR_FORMS,
  PLAIN_SKELETON_SPACE,
  probedKeys,
  TEXT_SPACE,
  WORD_FORMS,
} from './merge-postings.js';

/**
 * Marks on a search's candidates the query tokens a merge may relate to them without an anchor
 * (merge-postings.ts), for the name ceiling: each query word that may be two adjacent tokens of
 * the name written together, and each pair of adjacent query tokens that may be one of its words.
 * Merges compare consonant skeletons when the query or the name is from an abjad script, else the
 * text, as the alignment does.
 */
export class QueryMerges {
  private readonly probes = new Int32Array(MAX_PROBES);

  constructor(
    private readonly postings: MergePostings,
    private readonly collector: CandidateCollector,
  ) {}

  /** Call after the collector has collected this search's candidates: only they are marked. */
  mark(q: BoundQuery): void {
    const tokens = q.query!.tokens;
    const abjad = q.n > 0 && q.abjad[0] === 1;
    for (let i = 0; i < q.n; i++) {
      const token = tokens[i]!;
      if (q.cls[i] === WORD) this.markForms(PAIR_FORMS, abjad, token.codes, token.skeleton, 1 << i);
      const next = tokens[i + 1];
      if (next !== undefined && q.mergeable[i] === 1 && q.mergeable[i + 1] === 1) {
        this.markForms(WORD_FORMS, abjad, token.codes, token.skeleton, 3 << i, next.codes, next.skeleton);
      }
    }
  }

  /** Marks `bits` on the candidates holding a form of kind `forms` that may be this query form (or the two joined). */
  private markForms(
    forms: number,
    abjad: boolean,
    codes: Int32Array,
    skeleton: Int32Array,
    bits: number,
    nextCodes?: Int32Array,
    nextSkeleton?: Int32Array,
  ): void {
    const skeletonKey = mergeKey(skeleton, nextSkeleton);
    this.markSpace(forms, ABJAD_SKELETON_SPACE, skeletonKey, bits);
    if (abjad) this.markSpace(forms, PLAIN_SKELETON_SPACE, skeletonKey, bits);
    else this.markSpace(forms, TEXT_SPACE, mergeKey(codes, nextCodes), bits);
  }

  private markSpace(forms: number, space: number, key: number, bits: number): void {
    const { postings, collector, probes } = this;
    const names = postings.names;
    const count = probedKeys(key, probes);
    for (let k = 0; k < count; k++) {
      const found = postings.find(forms, space, probes[k]!);
      if (found < 0) continue;
      const end = postings.endOf(found);
      if (forms === PAIR_FORMS) {
        for (let e = postings.startOf(found); e < end; e++) collector.markMerging(names[e]!, bits);
      } else {
        for (let e = postings.startOf(found); e < end; e++) collector.markJoined(names[e]!, bits);
      }
    }
  }
}
