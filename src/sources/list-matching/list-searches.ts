import { type EntityMatch, NameIndex, SharedVocabulary } from '../../matching/index.js';
import type { MatchingAnswer, MatchingCommand } from './matching-thread.js';

type SearchCommand = Extract<MatchingCommand, { op: 'search' }>;

/**
 * The most names the combined index holds (see `ListSearches`): it is rebuilt (in steps) at each
 * of its lists' updates, and while it is, the index it replaces and the updated list's own stay in
 * memory beside it. The official lists have about 100,000 names; a large aggregated list
 * (OpenSanctions' export, a million names and more) is left to its own index, and the smaller
 * lists are combined without it.
 */
export const COMBINED_NAMES_LIMIT = 250_000;

/** What answers the searches of one list version. */
interface Version {
  /** The version's own index, or the combined index holding its names (with other lists'). */
  index: NameIndex;
  /** Whether `index` is the version's own. */
  own: boolean;
  /** The version's list (undefined for a version without a name to index: it is never combined). */
  source: string | undefined;
  names: number;
}

/**
 * The list indexes the matching thread holds, by number, and how it answers their searches.
 *
 * A screening searches every list with the same query, and one index per list (kept so that a
 * list's update rebuilds only its own) pays once per list for what a single index pays once: the
 * names of a party listed by OFAC, the UN, the EU and the UK alike are retrieved, bounded and
 * scored in each list, and each list probes its own merge postings. So the thread combines the
 * newest version of every list into one index (`combine`, from the names the lists' indexes
 * prepared), and answers the searches of one query that arrive together for several of the
 * versions it holds with one search of it, split by list. Per list, that search gives exactly
 * what the list's own index gives (`NameIndex.combine`).
 *
 * Once combined, a version's own index is let go: the combined index answers for it alone too
 * (searched for its list only), and a later combination takes its names from the combined index.
 * The own indexes were a second copy of every table in memory (35 MB of the official lists' 115
 * MB of typed arrays). A version keeps its own index only until it is combined (one just built),
 * or when it is left out (a list too large for the combined index, COMBINED_NAMES_LIMIT). A
 * combined index stays in memory as long as one version in service is answered by it; it never
 * answers for a version released.
 */
export class ListSearches {
  /** One vocabulary for every index: a screening expands each query word once for all of them. */
  readonly shared = new SharedVocabulary();
  private readonly versions = new Map<number, Version>();

  constructor(private readonly namesLimit = COMBINED_NAMES_LIMIT) {}

  add(number: number, index: NameIndex): void {
    const [source] = index.sources;
    this.versions.set(number, {
      index,
      own: true,
      source: index.sources.length === 1 ? source : undefined,
      names: index.size.names,
    });
  }

  release(number: number): void {
    this.versions.delete(number);
  }

  /** Whether searches of index `number` are answered by a combined index. */
  covered(number: number): boolean {
    const version = this.versions.get(number);
    return version !== undefined && !version.own;
  }

  /**
   * (Re)combines the newest version of each list: the smallest of them, as many as fit within the
   * limit (COMBINED_NAMES_LIMIT) together, when at least two do; unless one combined index
   * already holds exactly those. `pause` is awaited between the build's steps; searches answered
   * meanwhile use the indexes as they were, and a version released meanwhile makes this
   * combination out of date: it is dropped.
   */
  async combine(pause: () => Promise<void> = async () => {}): Promise<void> {
    const newest = new Map<string, number>();
    for (const [number, { source }] of this.versions) {
      if (source === undefined) continue;
      if ((newest.get(source) ?? -1) < number) newest.set(source, number);
    }
    const chosen: number[] = [];
    let names = 0;
    for (const n of [...newest.values()].sort((a, b) => this.namesOf(a) - this.namesOf(b) || a - b)) {
      if (names + this.namesOf(n) > this.namesLimit) break;
      names += this.namesOf(n);
      chosen.push(n);
    }
    if (chosen.length < 2) return;
    const indexes = chosen.map((n) => this.versions.get(n)!.index);
    const [first] = indexes;
    if (indexes.every((index) => index === first) && first!.sources.length === chosen.length) return;
    // The names of each chosen version come from the index answering for it: its own, or a
    // combined one (taking that version's list only).
    const parts = new Map<NameIndex, string[]>();
    chosen.forEach((n, k) => {
      const sources = parts.get(indexes[k]!) ?? [];
      sources.push(this.versions.get(n)!.source!);
      parts.set(indexes[k]!, sources);
    });
    const combined = await NameIndex.combineInSteps(
      [...parts].map(([index, sources]) => ({ index, sources })),
      pause,
    );
    if (chosen.some((n, k) => this.versions.get(n)?.index !== indexes[k])) return;
    for (const n of chosen) this.versions.get(n)!.index = combined;
    for (const n of chosen) this.versions.get(n)!.own = false;
  }

  private namesOf(number: number): number {
    return this.versions.get(number)!.names;
  }

  /** One answer per command, in order. */
  answer(commands: readonly SearchCommand[]): MatchingAnswer[] {
    const answers: MatchingAnswer[] = new Array(commands.length);
    // Searches of one query with the same options, each for a version one combined index answers.
    const together = new Map<NameIndex, Map<string, number[][]>>();
    commands.forEach((command, k) => {
      const version = this.versions.get(command.index);
      if (!version || version.own) return;
      const key = JSON.stringify([command.query, command.options]);
      const byQuery = together.get(version.index) ?? new Map<string, number[][]>();
      together.set(version.index, byQuery);
      const groups = byQuery.get(key) ?? [];
      byQuery.set(key, groups);
      // The same search twice in one message (two screenings alike) is answered by a search of
      // its own the second time: no two answers share their objects.
      const group = groups.find((g) => g.every((other) => commands[other]!.index !== command.index));
      if (group) group.push(k);
      else groups.push([k]);
    });
    for (const [index, byQuery] of together) {
      for (const groups of byQuery.values()) {
        for (const group of groups) {
          const found = this.answerTogether(
            index,
            group.map((k) => commands[k]!),
          );
          group.forEach((k, g) => {
            answers[k] = found[g]!;
          });
        }
      }
    }
    commands.forEach((command, k) => {
      answers[k] ??= this.answerAlone(command);
    });
    return answers;
  }

  /** Searches of one query, with the same options, for versions `index` (a combined index) answers. */
  private answerTogether(index: NameIndex, commands: readonly SearchCommand[]): MatchingAnswer[] {
    const { query, options } = commands[0]!;
    const asked = options.sources ? new Set(options.sources) : null;
    const listOf = (command: SearchCommand) => this.versions.get(command.index)!.source!;
    // A list the search's own filter leaves out has no matches, as from the list's own index.
    const sources = [...new Set(commands.map(listOf))].filter((source) => !asked || asked.has(source));
    try {
      const found =
        sources.length === 0
          ? new Map<string, EntityMatch[]>()
          : index.search(query, sources.length === index.sources.length ? options : { ...options, sources });
      return commands.map((command) => {
        const source = listOf(command);
        const matches = sources.includes(source) ? found.get(source) : undefined;
        return { id: command.id, matches: new Map(matches ? [[source, matches]] : []) };
      });
    } catch (error) {
      return commands.map((command) => failure(command.id, error));
    }
  }

  private answerAlone(command: SearchCommand): MatchingAnswer {
    try {
      const version = this.versions.get(command.index);
      if (!version) throw new Error('This list version is no longer in service; retry the screening.');
      return { id: command.id, matches: version.index.search(command.query, command.options) };
    } catch (error) {
      return failure(command.id, error);
    }
  }
}

export function failure(id: number, error: unknown): MatchingAnswer {
  return { id, error: error instanceof Error ? error.message : String(error) };
}
