/** Where a spooled line is: its spool's byte offset and its length. */
export interface SpooledLine {
  offset: number;
  length: number;
}

/**
 * What the first pass over an FtM export learns, to join each target with its adjacent entities
 * in the second: the targets in the order read, the entities looked up by id (positions,
 * addresses) and, per adjacent entity, the ids of the targets it belongs to. The lines themselves
 * are spooled on disk; only where they are is kept here, so memory grows with the number of
 * entities, not with their size. An adjacent entity may come before its target or after it: the
 * references are resolved only once the whole file is read (`finish`).
 */
export class FtmJoin {
  /** Ids of the targets read, first occurrence only, to their ordinal. */
  private readonly targetOrdinals = new Map<string, number>();
  private readonly targetOffsets: number[] = [];
  private readonly targetLengths: number[] = [];
  private readonly byIdLines = new Map<string, number>();
  private readonly sideOffsets: number[] = [];
  private readonly sideLengths: number[] = [];
  private refOwners: string[] = [];
  private refLines: number[] = [];
  private adjacentStart: Int32Array | undefined;
  private adjacentLines: Int32Array | undefined;
  /** Targets or looked-up entities whose id was read before (the first one is kept). */
  duplicates = 0;
  /** References to a target the file does not hold (dropped). */
  unresolved = 0;

  get targets(): number {
    return this.targetOffsets.length;
  }

  /** A target's line in the target spool; false when its id was already read. */
  addTarget(id: string, line: SpooledLine): boolean {
    if (this.targetOrdinals.has(id)) {
      this.duplicates++;
      return false;
    }
    this.targetOrdinals.set(id, this.targetOffsets.length);
    this.targetOffsets.push(line.offset);
    this.targetLengths.push(line.length);
    return true;
  }

  /** A line of the side spool (an adjacent or looked-up entity); returns its number there. */
  addSideLine(line: SpooledLine): number {
    this.sideOffsets.push(line.offset);
    this.sideLengths.push(line.length);
    return this.sideOffsets.length - 1;
  }

  /** A side line that targets refer to by its id (a Position, an Address). */
  addById(id: string, sideLine: number): void {
    if (this.byIdLines.has(id)) this.duplicates++;
    else this.byIdLines.set(id, sideLine);
  }

  /** A side line that belongs to the target `ownerId` (its Occupancy, Sanction, ...). */
  addAdjacent(ownerId: string, sideLine: number): void {
    this.refOwners.push(ownerId);
    this.refLines.push(sideLine);
  }

  /** Resolves the adjacent entities to their targets, once every line is read. */
  finish(): void {
    const owners = this.refOwners.map((id) => this.targetOrdinals.get(id) ?? -1);
    const start = new Int32Array(this.targets + 1);
    for (const owner of owners) if (owner >= 0) start[owner + 1]!++;
    for (let t = 0; t < this.targets; t++) start[t + 1]! += start[t]!;
    const lines = new Int32Array(start[this.targets]!);
    const next = start.slice(0, this.targets);
    owners.forEach((owner, k) => {
      if (owner < 0) this.unresolved++;
      else lines[next[owner]!++] = this.refLines[k]!;
    });
    this.adjacentStart = start;
    this.adjacentLines = lines;
    this.refOwners = [];
    this.refLines = [];
  }

  target(ordinal: number): SpooledLine {
    return { offset: this.targetOffsets[ordinal]!, length: this.targetLengths[ordinal]! };
  }

  /** The side lines of the target's adjacent entities, in the order read. */
  adjacent(ordinal: number): SpooledLine[] {
    const start = this.adjacentStart;
    const lines = this.adjacentLines;
    if (!start || !lines) throw new Error('FtmJoin.adjacent before finish');
    const out: SpooledLine[] = [];
    for (let k = start[ordinal]!; k < start[ordinal + 1]!; k++) out.push(this.sideLine(lines[k]!));
    return out;
  }

  /** The line of the entity with this id that the mapping may look up: a target, or a side line. */
  byId(id: string): { spool: 'targets' | 'side'; line: SpooledLine } | undefined {
    const target = this.targetOrdinals.get(id);
    if (target !== undefined) return { spool: 'targets', line: this.target(target) };
    const line = this.byIdLines.get(id);
    return line === undefined ? undefined : { spool: 'side', line: this.sideLine(line) };
  }

  private sideLine(line: number): SpooledLine {
    return { offset: this.sideOffsets[line]!, length: this.sideLengths[line]! };
  }
}
