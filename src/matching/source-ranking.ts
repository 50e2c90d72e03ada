/**
 * The best entities of each source seen so far, at most `limit` per source, so the index can stop
 * scoring a source's candidates whose upper bound cannot reach its current k-th best. Sources are
 * the index's source numbers; the floors sit in a typed array because every candidate reads one.
 */
export class SourceRanking {
  private readonly best = new Map<number, number>();
  private readonly top: { entity: number; score: number }[][];
  /** Per source: the score a candidate must reach to matter (ties included: they may win on key order). */
  readonly floors: Float64Array;

  constructor(
    sourceCount: number,
    private readonly limit: number,
    private readonly threshold: number,
  ) {
    this.top = Array.from({ length: sourceCount }, () => []);
    this.floors = new Float64Array(sourceCount).fill(threshold);
  }

  /** Records a score; returns true if it is the entity's best so far. */
  offer(source: number, entity: number, score: number): boolean {
    const known = this.best.get(entity);
    if (known !== undefined && known >= score) return false;
    this.best.set(entity, score);
    const list = this.top[source]!;
    const at = list.findIndex((e) => e.entity === entity);
    if (at >= 0) list.splice(at, 1);
    let k = list.length;
    while (k > 0 && list[k - 1]!.score < score) k--;
    if (k < this.limit) list.splice(k, 0, { entity, score });
    if (list.length > this.limit) list.length = this.limit;
    if (list.length >= this.limit)
      this.floors[source] = Math.max(this.threshold, list[list.length - 1]!.score);
    return true;
  }
}
