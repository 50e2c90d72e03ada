import { AnchorBound } from './anchor-bound.js';
import { adjacentConcatenations } from './anchors.js';
import { CandidateOrder } from './candidate-order.js';
import { CandidateCollector } from './candidates.js';
import { nameTypeAdjusted, preparationFor } from './entity-score.js';
import type { IndexData, TokenNames } from './index-data.js';
import { KeyPostings } from './key-postings.js';
import { MergePostings } from './merge-postings.js';
import { NameCeiling } from './name-ceiling.js';
import { groupNameForms } from './name-forms.js';
import { clusteredNameOrder } from './name-order.js';
import { explain, type ScoringContext, scoreNames } from './name-score.js';
import { buildNameTable, buildTokenTable } from './name-table.js';
import { prepareName } from './prepare.js';
import type { PreparedName } from './prepared.js';
import type { PreparedQuery } from './prepared-query.js';
import type { QuerySimilarityCache } from './query-cache.js';
import { QueryMerges } from './query-merges.js';
import { searchQuery } from './query-search.js';
import { kindsMatchedBy } from './query-type.js';
import { SharedVocabulary } from './shared-vocabulary.js';
import { SourceRanking } from './source-ranking.js';
import type {
  EntityKind,
  EntityMatch,
  MatchableEntity,
  MatchableName,
  PreparedSearchOptions,
  SearchOptions,
} from './types.js';

interface EntityHit {
  entity: number;
  name: number;
  score: number;
}

/**
 * In-memory index over every name of every loaded list. Built once per list version and never
 * changed afterwards: a new list version builds a new index and the caller swaps the reference.
 * `search` is synchronous, so the scratch buffers it reuses are never shared between two searches.
 */
/** A part of `NameIndex.combine`: an index, whole or for some of its sources. */
export type CombinedPart = NameIndex | { readonly index: NameIndex; readonly sources: readonly string[] };

export class NameIndex {
  private readonly collector: CandidateCollector;
  private readonly cache: QuerySimilarityCache;
  private readonly anchorBound: AnchorBound;
  private readonly ceiling: NameCeiling;
  private readonly merges: QueryMerges;
  private readonly order = new CandidateOrder();
  /** The name being scored: the scoring context's similarities read its tokens' ids. */
  private scored: PreparedName | null = null;

  private constructor(private readonly data: IndexData) {
    this.cache = data.shared.similarities;
    this.collector = new CandidateCollector(data, this.cache, data.shared.expansions);
    this.anchorBound = new AnchorBound(
      data.tokenTable,
      data.nameTable,
      data.vocabulary,
      this.collector,
      this.cache,
    );
    this.ceiling = new NameCeiling(data.nameTable, data.tokenTable, this.collector, this.cache);
    this.merges = new QueryMerges(data.mergePostings, this.collector);
  }

  /**
   * Builds the index of `entities`. Indexes searched with the same queries (one per list) should
   * share one `SharedVocabulary`: each query token is then expanded once for all of them.
   */
  static build(entities: Iterable<MatchableEntity>, shared = new SharedVocabulary()): NameIndex {
    const builder = new NameIndexBuilder(shared);
    for (const entity of entities) builder.add(entity);
    return builder.finish();
  }

  /**
   * One index over the entities of `parts` (indexes built on one shared vocabulary, no source in
   * two of them), from the names they prepared: nothing is prepared again. A part may be an index
   * with the sources to take from it (a combined index, to recombine it without its other
   * sources). A search of it gives, per source, exactly what the part holding that source gives;
   * the names two parts share are retrieved, bounded and scored once instead of once per part.
   * (Entities without a name to index are left out: they match nothing.)
   */
  static combine(parts: readonly CombinedPart[]): NameIndex {
    return runSteps(NameIndex.combineSteps(parts));
  }

  /** `combine` with `pause()` awaited after each part and between the steps of its end (`finishInSteps`). */
  static combineInSteps(parts: readonly CombinedPart[], pause: () => Promise<void>): Promise<NameIndex> {
    return runStepsPausing(NameIndex.combineSteps(parts), pause);
  }

  private static *combineSteps(parts: readonly CombinedPart[]): Generator<void, NameIndex> {
    const taken = parts.map((part) =>
      part instanceof NameIndex ? { index: part, sources: part.sources } : part,
    );
    const builder = NameIndex.combiner(taken);
    for (const { index, sources } of taken) {
      index.addEntitiesTo(builder, sources.length === index.sources.length ? null : new Set(sources));
      yield;
    }
    return yield* builder.steps();
  }

  private static combiner(
    parts: readonly { index: NameIndex; sources: readonly string[] }[],
  ): NameIndexBuilder {
    const shared = parts[0]?.index.data.shared ?? new SharedVocabulary();
    const sources = parts.flatMap((part) => part.sources);
    if (parts.some((part) => part.index.data.shared !== shared))
      throw new Error('Only indexes on one shared vocabulary combine.');
    if (new Set(sources).size !== sources.length) throw new Error('Indexes sharing a source do not combine.');
    if (parts.some((part) => part.sources.some((source) => !part.index.sources.includes(source))))
      throw new Error('A part of a combination takes only sources its index holds.');
    return new NameIndexBuilder(shared);
  }

  /** The sources of this index's entities. */
  get sources(): readonly string[] {
    return this.data.sources;
  }

  /**
   * Adds this index's entities (of `sources` only, unless null) to `builder` in the order they
   * were added here, names prepared.
   */
  private addEntitiesTo(builder: NameIndexBuilder, sources: ReadonlySet<string> | null): void {
    const { data } = this;
    // Names are stored in another order (name-order.ts): the name listed at position p is stored[p].
    // An entity's names were listed one after another; an entity without a name to index has none.
    const stored = new Int32Array(data.listedPosition.length);
    data.listedPosition.forEach((position, n) => {
      stored[position] = n;
    });
    let k = 0;
    while (k < stored.length) {
      const entity = data.nameEntity[stored[k]!]!;
      const names: number[] = [];
      for (; k < stored.length && data.nameEntity[stored[k]!] === entity; k++) names.push(stored[k]!);
      if (sources && !sources.has(data.entitySources[entity]!)) continue;
      builder.addPrepared(
        {
          key: data.entityKeys[entity]!,
          source: data.entitySources[entity]!,
          kind: data.entityKinds[entity]!,
        },
        names.map((n) => data.names[n]!),
        names.map((n) => data.prepared[n]!),
      );
    }
  }

  /** @internal The index of what `NameIndexBuilder` gathered. */
  static assemble(data: IndexData): NameIndex {
    return new NameIndex(data);
  }

  get size(): { entities: number; names: number } {
    return { entities: this.data.entityKeys.length, names: this.data.prepared.length };
  }

  /**
   * Per source, the entities scoring at least `threshold`, best first, at most `limitPerSource`:
   * every reading of the query, records of other kinds than its type by a strong match only
   * (query-search.ts).
   */
  search(query: string, options: SearchOptions): Map<string, EntityMatch[]> {
    return searchQuery(this, query, options);
  }

  /**
   * One reading of a query prepared once with `prepareQuery`, for the records of the kinds its type
   * is prepared as (and of no stated kind) only: the step `search` takes for each reading and kind.
   */
  searchPrepared(query: PreparedQuery, options: PreparedSearchOptions): Map<string, EntityMatch[]> {
    const best = this.bestPerEntity(query, options);
    return this.topPerSource(query.name, best, options);
  }

  /**
   * Scores candidates in descending order of their anchor bound and skips every candidate whose
   * bound is below its source's current k-th best: the top `limitPerSource` of each source come out
   * exactly as a full scan would give them, after scoring only the candidates that could enter it.
   */
  private bestPerEntity(query: PreparedQuery, options: PreparedSearchOptions): Map<number, EntityHit> {
    const { data, order } = this;
    const { forms } = data;
    const q = query.name;
    const filter = this.rankCandidates(query, options);
    const ranking = new SourceRanking(data.sources.length, options.limitPerSource, options.threshold);
    const best = new Map<number, EntityHit>();
    const context = this.scoringContext();
    for (let k = 0; k < order.size; k++) {
      const lead = order.nameAt(k);
      const bound = order.boundAt(k);
      // The form is scored once, when the first of its names can still matter.
      let formScore = -1;
      for (let at = forms.start[lead]!, end = forms.start[lead + 1]!; at < end; at++) {
        const name = forms.names[at]!;
        const source = data.nameTable.source[name]!;
        if (bound < ranking.floors[source]! || !filter.admits(name)) continue;
        if (formScore < 0) formScore = scoreNames(q, this.scoring(lead, context), context).score;
        const score = nameTypeAdjusted(formScore, data.names[name]!.type);
        if (score < options.threshold) continue;
        const entity = data.nameEntity[name]!;
        const known = best.get(entity);
        if (
          !known ||
          score > known.score ||
          (score === known.score && data.listedPosition[name]! < data.listedPosition[known.name]!)
        ) {
          best.set(entity, { entity, name, score });
        }
        ranking.offer(source, entity, score);
      }
    }
    return best;
  }

  /**
   * Makes the form led by `lead` the one `context` scores, with the merges retrieval marked on it;
   * returns its prepared name.
   */
  private scoring(lead: number, context: ScoringContext): PreparedName {
    this.scored = this.data.prepared[lead]!;
    context.mergedWords = this.collector.mergingOf(lead);
    context.mergedPairs = this.collector.joinedOf(lead);
    return this.scored;
  }

  /** Pair similarities of the query and the name being scored (`scored`), from the per-search caches. */
  private scoringContext(): ScoringContext {
    const { collector, cache } = this;
    const originals = this.data.shared.originalSimilarities;
    return {
      anchored: true,
      pairSimilarity: (i, j) => cache.similarity(i, this.scored!.tokens[j]!.id, collector),
      originalSimilarity: (i, j) => originals.similarity(i, this.scored!.original[j]!.id, null),
    };
  }

  /**
   * Retrieved candidates (the leads of their forms, name-forms.ts) that have a name passing the
   * filters and can reach the threshold, highest bound first: first the name ceiling
   * (name-ceiling.ts, a few reads per name, with the merges looked up for the whole query
   * beforehand) and, for the few that pass it, the anchor bound (anchor-bound.ts, tighter, reads
   * every token of the name). Returns the filter, which the form's names are checked against again.
   */
  private rankCandidates(query: PreparedQuery, options: PreparedSearchOptions): NameFilter {
    const { data, collector, cache, order, anchorBound, ceiling } = this;
    const filter = new NameFilter(data, options, kindsMatchedBy(query.type));
    cache.reset(query.name);
    data.shared.originalSimilarities.reset(query.name);
    order.reset();
    const q = anchorBound.prepare(query.name);
    ceiling.prepare(q);
    const count = collector.collect(query, (id, bits) => ceiling.tokenMass(id, bits));
    const candidates = collector.candidates;
    this.merges.mark(q);
    for (let k = 0; k < count; k++) {
      const lead = candidates[k]!;
      if (filter.active && !filter.admitsSome(lead)) continue;
      // The name ceiling costs a few reads; the anchor bound, tighter, reads every token of the name.
      if (!ceiling.mayReach(lead, options.threshold)) continue;
      const bound = anchorBound.bound(lead);
      if (bound >= options.threshold) order.add(lead, bound);
    }
    order.sort();
    return filter;
  }

  private topPerSource(q: PreparedName, best: Map<number, EntityHit>, options: PreparedSearchOptions) {
    const { data } = this;
    const context = this.scoringContext();
    const bySource = new Map<string, EntityHit[]>();
    for (const hit of best.values()) {
      const source = data.entitySources[hit.entity]!;
      const list = bySource.get(source) ?? [];
      list.push(hit);
      bySource.set(source, list);
    }
    const out = new Map<string, EntityMatch[]>();
    for (const [source, hits] of bySource) {
      hits.sort(
        (a, b) => b.score - a.score || compareKeys(data.entityKeys[a.entity]!, data.entityKeys[b.entity]!),
      );
      out.set(
        source,
        hits.slice(0, options.limitPerSource).map((hit) => {
          const result = scoreNames(q, this.scoring(data.forms.lead[hit.name]!, context), context);
          const name = data.names[hit.name]!;
          const explanation = explain(q, result, name);
          explanation.score = hit.score;
          return {
            key: data.entityKeys[hit.entity]!,
            source,
            score: hit.score,
            matchedName: name,
            explanation,
          };
        }),
      );
    }
    return out;
  }
}

/** A search's filters by source and entity kind, per name. */
class NameFilter {
  private readonly allowed: Uint8Array | null;
  private readonly kinds: ReadonlySet<EntityKind> | null;
  readonly active: boolean;

  /** `typeKinds`: the kinds the query's type matches (undefined: all), besides the options' own. */
  constructor(
    private readonly data: IndexData,
    options: PreparedSearchOptions,
    typeKinds: readonly EntityKind[] | undefined,
  ) {
    const sources = options.sources ? new Set(options.sources) : null;
    this.allowed = sources ? Uint8Array.from(data.sources, (s) => (sources.has(s) ? 1 : 0)) : null;
    const kinds =
      options.kinds && typeKinds
        ? options.kinds.filter((k) => typeKinds.includes(k))
        : (options.kinds ?? typeKinds);
    this.kinds = kinds ? new Set(kinds) : null;
    this.active = this.allowed !== null || this.kinds !== null;
  }

  admits(name: number): boolean {
    const { data, allowed, kinds } = this;
    if (allowed && allowed[data.nameTable.source[name]!] === 0) return false;
    return !kinds || kinds.has(data.entityKinds[data.nameEntity[name]!]!);
  }

  /** Whether some name of the form led by `lead` passes. */
  admitsSome(lead: number): boolean {
    const { start, names } = this.data.forms;
    for (let at = start[lead]!, end = start[lead + 1]!; at < end; at++)
      if (this.admits(names[at]!)) return true;
    return false;
  }
}

/**
 * Builds a `NameIndex` an entity at a time: `NameIndex.build` in steps, for a caller that serves
 * searches of other indexes in between (the matching thread). Names are prepared, and their words
 * added to the shared vocabulary, as each entity comes; the index's own tables are made by
 * `finish`. Indexes already built meanwhile stay valid: they skip the words added after them.
 */
export class NameIndexBuilder {
  private readonly entityKeys: string[] = [];
  private readonly entitySources: string[] = [];
  private readonly entityKinds: EntityKind[] = [];
  private readonly nameEntity: number[] = [];
  private readonly names: MatchableEntity['names'] = [];
  private readonly prepared: PreparedName[] = [];

  constructor(private readonly shared = new SharedVocabulary()) {}

  add(entity: MatchableEntity): void {
    const prepared = entity.names.map((name) =>
      prepareName(
        name.full,
        preparationFor(entity.kind),
        this.shared.vocabulary.factory,
        this.shared.originals.factory,
      ),
    );
    this.addPrepared(entity, entity.names, prepared);
  }

  /** Adds an entity whose names were prepared on this builder's shared vocabulary (`NameIndex.combine`). */
  addPrepared(
    entity: Omit<MatchableEntity, 'names'>,
    names: readonly MatchableName[],
    prepared: readonly PreparedName[],
  ): void {
    const e = this.entityKeys.length;
    this.entityKeys.push(entity.key);
    this.entitySources.push(entity.source);
    this.entityKinds.push(entity.kind);
    names.forEach((name, k) => {
      const p = prepared[k]!;
      if (p.tokens.length === 0) return;
      this.nameEntity.push(e);
      this.names.push(name);
      this.prepared.push(p);
    });
  }

  finish(): NameIndex {
    return runSteps(this.steps());
  }

  /**
   * `finish` with `pause()` awaited between its steps (each about a fifth of it; the whole takes
   * about a second for the official lists combined): a thread serving searches meanwhile answers
   * them between steps instead of after it.
   */
  finishInSteps(pause: () => Promise<void>): Promise<NameIndex> {
    return runStepsPausing(this.steps(), pause);
  }

  /** @internal The work of `finish`, yielding between its steps. */
  *steps(): Generator<void, NameIndex> {
    const { entityKeys, entitySources, entityKinds, shared } = this;
    const listedPosition = clusteredNameOrder(this.prepared);
    const nameEntity = Int32Array.from(listedPosition, (n) => this.nameEntity[n]!);
    const names = Array.from(listedPosition, (n) => this.names[n]!);
    const prepared = Array.from(listedPosition, (n) => this.prepared[n]!);
    const vocabulary = shared.vocabulary;
    vocabulary.postings.compact();
    const sources = [...new Set(entitySources)];
    const sourceNumber = new Map(sources.map((s, k) => [s, k]));
    yield;
    const forms = groupNameForms(prepared);
    const isLead = (n: number) => forms.lead[n] === n;
    // A lead's record carries the weak-alias flag only when every name of its form is weak (the
    // bounds then hold for all of them); each name's own type adjusts its score.
    const boundTypes = names.map((_, n) => {
      if (!isLead(n)) return names[n]!.type;
      for (let at = forms.start[n]!; at < forms.start[n + 1]!; at++)
        if (names[forms.names[at]!]!.type !== 'weak_aka') return names[forms.names[at]!]!.type;
      return 'weak_aka';
    });
    const tokenNames = invertTokens(prepared, vocabulary.tokens.length, isLead);
    const adjacentJoins = postAdjacentJoins(prepared, isLead);
    yield;
    const mergePostings = MergePostings.build(prepared, isLead);
    yield;
    const nameTable = buildNameTable(
      prepared,
      boundTypes,
      (n) => sourceNumber.get(entitySources[nameEntity[n]!]!)!,
    );
    yield;
    return NameIndex.assemble({
      entityKeys,
      entitySources,
      entityKinds,
      nameEntity,
      listedPosition,
      names,
      prepared,
      vocabulary,
      shared,
      forms,
      tokenNames,
      adjacentJoins,
      mergePostings,
      sources,
      nameTable,
      tokenTable: buildTokenTable(vocabulary.tokens),
    });
  }
}

/** Runs work written as steps (a generator yielding between them) to its end at once. */
function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs work written as steps to its end, awaiting `pause()` between them. */
async function runStepsPausing<T>(steps: Generator<void, T>, pause: () => Promise<void>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function postAdjacentJoins(
  prepared: readonly PreparedName[],
  posted: (name: number) => boolean,
): KeyPostings {
  const joins = new KeyPostings();
  prepared.forEach((name, n) => {
    if (!posted(n)) return;
    for (const { text } of adjacentConcatenations(name.tokens)) joins.add(text, n);
  });
  joins.compact();
  return joins;
}

function invertTokens(
  prepared: readonly PreparedName[],
  vocabularySize: number,
  posted: (name: number) => boolean,
): TokenNames {
  const start = new Int32Array(vocabularySize + 1);
  prepared.forEach((name, n) => {
    if (posted(n)) for (const token of name.tokens) start[token.id + 1]!++;
  });
  for (let t = 0; t < vocabularySize; t++) start[t + 1]! += start[t]!;
  const names = new Int32Array(start[vocabularySize]!);
  const filled = start.slice(0, vocabularySize);
  prepared.forEach((name, n) => {
    if (posted(n)) for (const token of name.tokens) names[filled[token.id]!++] = n;
  });
  return { start, names };
}
