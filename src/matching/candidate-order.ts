/**
 * Candidates in descending order of their score bound, by bucketing instead of sorting: a query can
 * retrieve tens of thousands of names, and a comparison sort of them would cost more than deciding
 * most of them. Order inside a bucket does not matter for correctness (every candidate is checked
 * against its source's floor on its own bound), only for how soon the floors rise.
 */

const BUCKETS = 1024;

export class CandidateOrder {
  private names = new Int32Array(1024);
  private bounds = new Float64Array(1024);
  private sortedNames = new Int32Array(1024);
  private sortedBounds = new Float64Array(1024);
  private readonly counts = new Int32Array(BUCKETS + 1);
  size = 0;

  reset(): void {
    this.size = 0;
  }

  add(name: number, bound: number): void {
    if (this.size === this.names.length) this.grow();
    this.names[this.size] = name;
    this.bounds[this.size] = bound;
    this.size++;
  }

  private grow(): void {
    const length = this.names.length * 2;
    const names = new Int32Array(length);
    const bounds = new Float64Array(length);
    names.set(this.names);
    bounds.set(this.bounds);
    this.names = names;
    this.bounds = bounds;
    this.sortedNames = new Int32Array(length);
    this.sortedBounds = new Float64Array(length);
  }

  /** Sorts by bucket, highest bound first; read the result with `nameAt` and `boundAt`. */
  sort(): void {
    const { counts, size } = this;
    counts.fill(0);
    for (let k = 0; k < size; k++) counts[bucketOf(this.bounds[k]!)]!++;
    // Highest bucket first: prefix sums from the top.
    let offset = 0;
    for (let b = BUCKETS; b >= 0; b--) {
      const count = counts[b]!;
      counts[b] = offset;
      offset += count;
    }
    for (let k = 0; k < size; k++) {
      const at = counts[bucketOf(this.bounds[k]!)]!++;
      this.sortedNames[at] = this.names[k]!;
      this.sortedBounds[at] = this.bounds[k]!;
    }
  }

  nameAt(k: number): number {
    return this.sortedNames[k]!;
  }

  boundAt(k: number): number {
    return this.sortedBounds[k]!;
  }
}

function bucketOf(bound: number): number {
  const b = Math.floor(bound * BUCKETS);
  return b < 0 ? 0 : b > BUCKETS ? BUCKETS : b;
}
