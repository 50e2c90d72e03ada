/**
 * Deterministic randomness for the synthetic export. Every target draws from a stream of its own,
 * seeded by (seed, target index, version), so any target of any version can be made again alone:
 * a delta needs only the targets that change, and bounded memory needs nothing kept between them.
 */

/** murmur3's finaliser: a bijection of 32-bit integers, so distinct inputs give distinct outputs. */
export function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A 32-bit hash of a few integers, order-sensitive. */
export function hashInts(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const value of values) h = mix32(h ^ mix32(value + 0x7f4a7c15));
  return h;
}

/** A uniform number in [0, 1) from a hash of a few integers (for one-off decisions). */
export function hashUnit(...values: number[]): number {
  return hashInts(...values) / 2 ** 32;
}

export interface Random {
  /** A uniform number in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** 32 random bits. */
  bits(): number;
}

/** sfc32, seeded from a few integers: fast, and good enough for test data. */
export function randomFor(...seed: number[]): Random {
  let a = hashInts(1, ...seed);
  let b = hashInts(2, ...seed);
  let c = hashInts(3, ...seed);
  let d = 1;
  const bits = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 8; i++) bits();
  const next = () => bits() / 2 ** 32;
  return {
    next,
    bits,
    int: (n) => Math.floor(next() * n),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
  };
}

/** Picks among weighted choices; the weights need not sum to 1. */
export class Weighted<T> {
  private readonly cumulative: number[] = [];
  private readonly values: T[] = [];
  private total = 0;

  constructor(choices: ReadonlyArray<readonly [T, number]>) {
    for (const [value, weight] of choices) {
      if (weight <= 0) continue;
      this.total += weight;
      this.cumulative.push(this.total);
      this.values.push(value);
    }
  }

  pick(random: Random): T {
    return this.at(random.next());
  }

  /** The choice for a uniform number u in [0, 1). */
  at(u: number): T {
    const x = u * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return this.values[lo]!;
  }
}
