import { NameIndex, SharedVocabulary } from '../../matching/index.js';
import type { MatchingAnswer, MatchingCommand } from './matching-thread.js';

type SearchCommand = Extract<MatchingCommand, { op: 'search' }>;

/**
 * The most names the combined index holds (see `ListSearches`): it is a second copy of its lists'
 * tables in memory, and it is rebuilt (in steps) at each of their updates. The
 * official lists have about 100,000 names; a large aggregated list (OpenSanctions' export, a
 * million names and more) is left to its own index, and the smaller lists are combined without it.
 */
export const COMBINED_NAMES_LIMIT = 250_000;

/**
 * The list indexes the matching thread holds, by number, and how it answers their searches.
 *
 * A screening searches every list with the same query, and one index per list (kept so that a
 * list's update rebuilds only its own) pays once per list for what a single index pays once: the
 * names of a party listed by OFAC, the UN, the EU and the UK alike are retrieved, bounded and
 * scored in each list, and each list probes its own merge postings. So the thread also keeps one
 * index combining the newest version of every list (`combine`, from the names the lists' indexes
 * prepared), and answers the searches of one query that arrive together for several of the
 * versions it covers with one search of it, split by list. Per list, that search gives exactly
 * what the list's own index gives (`NameIndex.combine`); versions it does not cover (one being
 * replaced, one just built) are searched on their own.
 */
export class ListSearches {
  /** One vocabulary for every index: a screening expands each query word once for all of them. */
  readonly shared = new SharedVocabulary();
  private readonly indexes = new Map<number, NameIndex>();
  private combined: { index: NameIndex; covers: Map<number, string> } | null = null;

  constructor(private readonly namesLimit = COMBINED_NAMES_LIMIT) {}

  add(number: number, index: NameIndex): void {
    this.indexes.set(number, index);
  }

  release(number: number): void {
    this.indexes.delete(number);
    // The combined index must never answer for a version out of service.
    if (this.combined?.covers.has(number)) this.combined = null;
  }

  /** Whether searches of index `number` may be answered by the combined index. */
  covered(number: number): boolean {
    return this.combined?.covers.has(number) ?? false;
  }

  /**
   * (Re)builds the combined index over the newest index of each source: the smallest of them, as
   * many as fit within the limit (COMBINED_NAMES_LIMIT) together, when at least two do; unless it
   * already covers exactly those. `pause` is awaited between the build's steps; searches answered
   * meanwhile use the index combined before, and a part released meanwhile makes this one out of
   * date: it is dropped.
   */
  async combine(pause: () => Promise<void> = async () => {}): Promise<void> {
    // Each list's index holds one source, the list.
    const newest = new Map<string, number>();
    for (const [number, index] of this.indexes) {
      const [source] = index.sources;
      if (index.sources.length !== 1 || source === undefined) continue;
      if ((newest.get(source) ?? -1) < number) newest.set(source, number);
    }
    const chosen: [string, number][] = [];
    let names = 0;
    for (const [source, n] of [...newest].sort(
      (a, b) => this.namesOf(a[1]) - this.namesOf(b[1]) || a[1] - b[1],
    )) {
      if (names + this.namesOf(n) > this.namesLimit) break;
      names += this.namesOf(n);
      chosen.push([source, n]);
    }
    const current = this.combined?.covers;
    if (current?.size === chosen.length && chosen.every(([source, n]) => current.get(n) === source)) return;
    if (chosen.length < 2) {
      this.combined = null;
      return;
    }
    const parts = chosen.map(([, n]) => this.indexes.get(n)!);
    const index = await NameIndex.combineInSteps(parts, pause);
    if (chosen.some(([, n], k) => this.indexes.get(n) !== parts[k])) return;
    this.combined = { index, covers: new Map(chosen.map(([source, n]) => [n, source])) };
  }

  private namesOf(number: number): number {
    return this.indexes.get(number)!.size.names;
  }

  /** One answer per command, in order. */
  answer(commands: readonly SearchCommand[]): MatchingAnswer[] {
    const answers: MatchingAnswer[] = new Array(commands.length);
    // Searches of one query with the same options, each for a version the combined index covers.
    const together = new Map<string, number[]>();
    commands.forEach((command, k) => {
      if (!this.covered(command.index) || command.options.sources || command.options.kinds) return;
      const key = JSON.stringify([command.query, command.options]);
      const group = together.get(key);
      // The same search twice in one message (two screenings alike) is answered alone the second
      // time: no two answers share their objects.
      if (!group) together.set(key, [k]);
      else if (group.every((other) => commands[other]!.index !== command.index)) group.push(k);
    });
    for (const group of together.values()) {
      if (group.length < 2) continue;
      for (const [k, answer] of this.answerTogether(group.map((k) => commands[k]!)).entries())
        answers[group[k]!] = answer;
    }
    commands.forEach((command, k) => {
      answers[k] ??= this.answerAlone(command);
    });
    return answers;
  }

  private answerTogether(commands: readonly SearchCommand[]): MatchingAnswer[] {
    const { index, covers } = this.combined!;
    const sources = commands.map((command) => covers.get(command.index)!);
    const { query, options } = commands[0]!;
    try {
      const all = sources.length === covers.size;
      const found = index.search(query, all ? options : { ...options, sources });
      return commands.map((command, k) => {
        const matches = found.get(sources[k]!);
        return { id: command.id, matches: new Map(matches ? [[sources[k]!, matches]] : []) };
      });
    } catch (error) {
      return commands.map((command) => failure(command.id, error));
    }
  }

  private answerAlone(command: SearchCommand): MatchingAnswer {
    try {
      const index = this.indexes.get(command.index);
      if (!index) throw new Error('This list version is no longer in service; retry the screening.');
      return { id: command.id, matches: index.search(command.query, command.options) };
    } catch (error) {
      return failure(command.id, error);
    }
  }
}

export function failure(id: number, error: unknown): MatchingAnswer {
  return { id, error: error instanceof Error ? error.message : String(error) };
}
