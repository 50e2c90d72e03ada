import type { PreparedName } from './prepared.js';

/**
 * Names of an index that prepare to one and the same form: the same tokens and the same
 * original-script tokens, in the same order, and alike damaged or not. Lists repeat names a great deal (one party on several
 * lists, an alias listed as weak and as strong, the same alias under two entities): over every list
 * of the shared data, 93,519 names have 49,833 distinct forms. Everything a search computes about a
 * name before it knows its entity, source and type (its retrieval, both score bounds, its alignment
 * with the query) depends on its form alone, so an index retrieves, bounds and scores each form
 * once, through the first of its names (its *lead*), and then reads the form's names.
 */
export interface NameForms {
  /** Per name, the lead of its form (the first of its names in storage order). */
  readonly lead: Int32Array;
  /** A lead's names (itself first) are `names[start[lead] .. start[lead + 1])`; other names have none. */
  readonly start: Int32Array;
  readonly names: Int32Array;
}

export function groupNameForms(prepared: readonly PreparedName[]): NameForms {
  const count = prepared.length;
  const lead = new Int32Array(count);
  const leadOfForm = new Map<string, number>();
  const size = new Int32Array(count);
  prepared.forEach((p, n) => {
    const form = `${p.script}\u0000${tokenIds(p.tokens)}\u0000${tokenIds(p.original)}\u0000${p.damaged}`;
    const known = leadOfForm.get(form);
    lead[n] = known ?? n;
    if (known === undefined) leadOfForm.set(form, n);
    size[lead[n]!]!++;
  });
  const start = new Int32Array(count + 1);
  for (let n = 0; n < count; n++) start[n + 1] = start[n]! + size[n]!;
  const names = new Int32Array(count);
  const filled = start.slice(0, count);
  for (let n = 0; n < count; n++) names[filled[lead[n]!]!++] = n;
  return { lead, start, names };
}

function tokenIds(tokens: PreparedName['tokens']): string {
  return tokens.map((t) => t.id).join(' ');
}
