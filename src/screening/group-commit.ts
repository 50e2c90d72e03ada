/**
 * The most screenings one statement counts and stores. Bounds the statement's size (each live
 * screening adds its ~10 KB result as a parameter); the rest wait for the next statement.
 */
export const GROUP_COMMIT_MAX_ITEMS = 32;

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: writes submitted under one key go together, in one write: those submitted in the
 * same turn of the event loop, and those submitted while a write of that key is in flight (they
 * wait for it to end). A submission that finds its key idle waits one turn of the loop and no more
 * (microseconds when nothing else is ready), never for company that may not come. Under
 * concurrency (fifty connections of one API key) one statement then counts and stores many
 * screenings instead of one each, which is where most of a screening's database cost goes
 * (parsing, planning and a round trip per statement), so throughput rises most where screenings
 * arrive together. Writes of one key never overlap, and those of different keys never wait for
 * each other.
 *
 * A group's write is all or nothing (one statement); when it fails, each member is written again
 * alone (`writeTogetherThenAlone`), so a month with room for only some of them admits exactly those
 * (the conditional increment decides for each), and an error that is nobody's in particular (the
 * database unreachable) reaches every member as it would have.
 */
export class GroupCommit<T> {
  private readonly waiting = new Map<string, Waiting<T>[]>();
  private readonly writing = new Set<string>();

  constructor(
    private readonly write: (items: readonly T[]) => Promise<void>,
    private readonly maxItems = GROUP_COMMIT_MAX_ITEMS,
  ) {}

  /** Resolves once `item` is written (alone or with others of the same key); rejects with its own failure. */
  submit(key: string, item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) queue.push({ item, resolve, reject });
      else this.waiting.set(key, [{ item, resolve, reject }]);
      if (!this.writing.has(key)) void this.drain(key);
    });
  }

  /** Writes the key's queue, a group at a time, until it is empty. */
  private async drain(key: string): Promise<void> {
    this.writing.add(key);
    try {
      // One turn of the event loop first: the requests whose bytes arrived with this one reach
      // their own submission meanwhile (on the embedded database a statement runs without giving
      // the loop a turn, so without this no second screening could ever join the first).
      await new Promise((resolve) => setImmediate(resolve));
      for (let group = this.take(key); group.length > 0; group = this.take(key)) await this.commit(group);
    } finally {
      this.writing.delete(key);
    }
  }

  private take(key: string): Waiting<T>[] {
    const queue = this.waiting.get(key) ?? [];
    const group = queue.splice(0, this.maxItems);
    if (queue.length === 0) this.waiting.delete(key);
    return group;
  }

  private async commit(group: readonly Waiting<T>[]): Promise<void> {
    const outcomes = await writeTogetherThenAlone(
      group.map((w) => w.item),
      this.write,
    );
    group.forEach((waiting, i) => {
      const outcome = outcomes[i]!;
      if (outcome.written) waiting.resolve();
      else waiting.reject(outcome.error);
    });
  }
}

/** How one member of a group write ended: written, or with the error that stopped it. */
export type MemberOutcome = { written: true } | { written: false; error: unknown };

/**
 * Writes the members in one write, all or nothing. When that fails and the error may be one
 * member's own (`retryAlone`; by default any error), each member is written again alone and gets
 * its own outcome: a month with room for only some of them admits exactly those. Otherwise, and for
 * a lone member, every member ends with the group's error.
 */
export async function writeTogetherThenAlone<T>(
  members: readonly T[],
  write: (members: readonly T[]) => Promise<void>,
  retryAlone: (error: unknown) => boolean = () => true,
): Promise<MemberOutcome[]> {
  try {
    await write(members);
    return members.map(() => ({ written: true }));
  } catch (error) {
    if (members.length < 2 || !retryAlone(error)) return members.map(() => ({ written: false, error }));
    const outcomes: MemberOutcome[] = [];
    for (const member of members)
      outcomes.push(
        await write([member]).then(
          (): MemberOutcome => ({ written: true }),
          (e: unknown): MemberOutcome => ({ written: false, error: e }),
        ),
      );
    return outcomes;
  }
}
