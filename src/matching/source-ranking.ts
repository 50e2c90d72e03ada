/**
 * The best entities of each source seen so far, at most `limit` per source, so the index can stop
 * scoring a source's candidates whose upper bound cannot reach its current k-th best.
 */
export class SourceRanking {
  private readonly best = new Map<number, number>();
  private readonly top = new Map<string, { entity: number; score: number }[]>();

  constructor(
    private readonly limit: number,
    private readonly threshold: number,
  ) {}

  /** The score a candidate of `source` must reach to matter (ties included: they may win on key order). */
  floor(source: string): number {
    const list = this.top.get(source);
    return list && list.length >= this.limit
      ? Math.max(this.threshold, list[list.length - 1]!.score)
      : this.threshold;
  }

  /** Records a score; returns true if it is the entity's best so far. */
  offer(source: string, entity: number, score: number): boolean {
    const known = this.best.get(entity);
    if (known !== undefined && known >= score) return false;
    this.best.set(entity, score);
    const list = this.top.get(source) ?? [];
    const at = list.findIndex((e) => e.entity === entity);
    if (at >= 0) list.splice(at, 1);
    let k = list.length;
    while (k > 0 && list[k - 1]!.score < score) k--;
    if (k < this.limit) list.splice(k, 0, { entity, score });
    if (list.length > this.limit) list.length = this.limit;
    this.top.set(source, list);
    return true;
  }
}
