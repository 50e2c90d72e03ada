import type { PreparedToken } from './prepared.js';
import { grown } from './typed-arrays.js';

const ABJAD = 1;
const GROUPED = 2;

/**
 * A vocabulary's tokens' code points and consonant skeletons in two flat buffers, with a flag byte
 * per token, indexed by token id. Expanding a query word compares it with dozens of vocabulary
 * tokens; reading each token object, its strings and its code arrays costs several cache misses per
 * comparison, where flat buffers are read in sequence. Grows as tokens are added; ids are the
 * vocabulary's.
 */
export class TokenCodes {
  codes = new Int32Array(1 << 12);
  skeletons = new Int32Array(1 << 12);
  /** Token t's code points are codes[codeStart[t] .. codeStart[t + 1]); skeletons likewise. */
  codeStart = new Int32Array(1 << 10);
  skeletonStart = new Int32Array(1 << 10);
  private flags = new Uint8Array(1 << 10);
  private count = 0;

  add(token: PreparedToken): void {
    const t = this.count++;
    if (t + 1 >= this.codeStart.length) {
      this.codeStart = grown(this.codeStart, t + 2);
      this.skeletonStart = grown(this.skeletonStart, t + 2);
      this.flags = grown(this.flags, t + 2);
    }
    this.codes = append(this.codes, this.codeStart, t, token.codes);
    this.skeletons = append(this.skeletons, this.skeletonStart, t, token.skeleton);
    this.flags[t] = (token.abjad ? ABJAD : 0) | (token.groups.length > 0 ? GROUPED : 0);
  }

  isAbjad(id: number): boolean {
    return (this.flags[id]! & ABJAD) !== 0;
  }

  /** Whether the token belongs to some equivalence group. */
  isGrouped(id: number): boolean {
    return (this.flags[id]! & GROUPED) !== 0;
  }
}

/** Writes `values` as item `t` of a flat buffer whose starts are `start` (start[t] is set), returning the buffer. */
function append<T extends Int32Array>(buffer: T, start: Int32Array, t: number, values: Int32Array): T {
  const from = start[t]!;
  const out = from + values.length > buffer.length ? grown(buffer, from + values.length) : buffer;
  out.set(values, from);
  start[t + 1] = from + values.length;
  return out;
}
