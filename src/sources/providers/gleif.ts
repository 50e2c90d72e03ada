import type { QueryType } from '../../matching/index.js';
import { timeLimited } from '../../time-limit.js';
import type { Flag } from '../flag.js';
import type { SourceQuery } from '../source.js';
import {
  type CompanyMatch,
  companyMatch,
  GLEIF_SOURCE_ID,
  listedParentFlag,
  type OwnershipLink,
  ownershipLinks,
} from './gleif-ownership.js';
import { type LeiRecord, leiRecordsFrom, type ParentReport, singleLeiRecordFrom } from './gleif-records.js';
import { ProviderError } from './provider-error.js';
import type { ProviderHttp } from './provider-http.js';
import type { ProviderSettings } from './provider-settings.js';
import type { ProviderAdapter } from './provider-source.js';

/** Records asked for per name search; the API ranks by relevance, our matcher decides. */
export const GLEIF_SEARCH_PAGE_SIZE = 10;
/**
 * Matched companies whose parents are looked up (two calls each, all in parallel): a name shared
 * by a few entities (a holding and its namesake subsidiaries) is covered, a vague one costs at
 * most this many.
 */
export const GLEIF_COMPANIES_MAX = 3;

/**
 * Query types of parties the LEI registry never holds: natural persons have no LEI, and ships and
 * aircraft are registered elsewhere (their owners are the companies to screen). Every other type
 * (an entity, an organisation) is a legal entity GLEIF may know. Plain strings, so that a type
 * not in the query union yet can be listed before it is.
 */
const NOT_LEGAL_ENTITIES: ReadonlySet<string> = new Set(['person', 'vessel', 'aircraft']);

/** What GLEIF needs of the official lists loaded here, against which it screens the parents. */
export interface OfficialLists {
  screenOfficialLists(query: SourceQuery, signal: AbortSignal): Promise<Flag[]>;
  /** Their versions in service, in one text that changes when any of them does. */
  officialListVersions(): string;
}

/** Hex digits of the version digest: a cache key part, not a security boundary. */
interface ParentLookup {
  links: OwnershipLink[];
  failure: ProviderError | undefined;
}

/**
 * `gleif`: who owns the screened company, from the GLEIF LEI registry, and whether that owner is
 * on an official list. A registry record is no compliance signal by itself; a listed direct or
 * ultimate parent is (ownership by a listed party can make the subsidiary subject to the same
 * sanctions), so only those become flags.
 *
 * The name search is `filter[entity.names]`: it covers the legal name and the other names GLEIF
 * holds (previous, trading, transliterated). `filter[entity.legalName]` misses those names,
 * `filter[fulltext]` also matches addresses (a town's name outranks the company), and
 * `/fuzzycompletions` returns only a name and an LEI per hit, which would cost a second round trip
 * inside the same time budget before the parents can be asked.
 */
export class GleifAdapter implements ProviderAdapter {
  readonly id = GLEIF_SOURCE_ID;
  readonly kind = 'corporate_registry' as const;
  private readonly baseUrl: string;
  private readonly budgetMs: number;

  constructor(
    private readonly http: ProviderHttp,
    settings: ProviderSettings,
    private readonly officialLists: OfficialLists,
  ) {
    this.baseUrl = settings.gleif.url.replace(/\/+$/, '');
    this.budgetMs = settings.timeoutMs;
  }

  appliesTo(type: QueryType): boolean {
    return !NOT_LEGAL_ENTITIES.has(type);
  }

  /**
   * An answer depends on the official lists as much as on GLEIF (parents are screened against
   * them), so its version is theirs: a list update ends the cached results, as it does for the
   * lists themselves.
   */
  // The screening's cache key hashes every source's version: the lists' versions serve as they are.
  version(): string {
    return this.officialLists.officialListVersions();
  }

  /**
   * Flags for the listed parents of the companies the name matches. A parent look-up that failed
   * makes the answer a failure only when nothing was found: a listed parent that was found is
   * reported (it decides the risk), while "no listed parent" is never claimed for a parent that
   * could not be looked up.
   */
  async search(query: SourceQuery, signal: AbortSignal): Promise<Flag[]> {
    const started = performance.now();
    const matches = (await this.findCompanies(query.entity, signal))
      .map((record) => companyMatch(query.entity, record))
      .filter((m) => m.comparison.score >= query.threshold)
      .sort((a, b) => b.comparison.score - a.comparison.score)
      .slice(0, GLEIF_COMPANIES_MAX);
    if (matches.length === 0) return [];
    // Parent calls share what is left of the one time budget, so the whole search ends within it.
    const remainingMs = Math.max(0, this.budgetMs - (performance.now() - started));
    const stage = timeLimited(signal, remainingMs);
    const lookups = await Promise.all(matches.map((m) => this.parentsOf(m.record, stage.signal))).finally(
      stage.clear,
    );
    const flags = (
      await Promise.all(
        matches.flatMap((match, i) =>
          // The lists answer in-process at once: only the caller's signal may stop them, never the
          // stage's deadline (a parent screened against no list must not read as "not listed").
          lookups[i]!.links.map((link) => this.listedParent(match, link, query, signal)),
        ),
      )
    ).flat();
    const failure = lookups.find((l) => l.failure)?.failure;
    if (flags.length === 0 && failure) throw failure;
    return flags;
  }

  private async findCompanies(name: string, signal: AbortSignal): Promise<LeiRecord[]> {
    const url = new URL(`${this.baseUrl}/lei-records`);
    url.searchParams.set('filter[entity.names]', name);
    url.searchParams.set('page[size]', String(GLEIF_SEARCH_PAGE_SIZE));
    const records = leiRecordsFrom(await this.http.json({ url }, signal));
    if (!records) throw new ProviderError(this.id, 'malformed', 'the answer is not a list of LEI records');
    return records;
  }

  private async parentsOf(company: LeiRecord, signal: AbortSignal): Promise<ParentLookup> {
    const [direct, ultimate] = await Promise.allSettled([
      this.parent(company, 'direct-parent', company.parents.direct, signal),
      this.parent(company, 'ultimate-parent', company.parents.ultimate, signal),
    ]);
    const failed = [direct, ultimate].find((r) => r.status === 'rejected');
    return {
      links: ownershipLinks(
        company,
        direct.status === 'fulfilled' ? direct.value : undefined,
        ultimate.status === 'fulfilled' ? ultimate.value : undefined,
      ),
      failure: failed ? this.asFailure(failed.reason) : undefined,
    };
  }

  /** The parent's record; undefined when GLEIF reports none (a reporting exception, or 404). */
  private async parent(
    company: LeiRecord,
    relation: 'direct-parent' | 'ultimate-parent',
    report: ParentReport,
    signal: AbortSignal,
  ): Promise<LeiRecord | undefined> {
    if (report === 'exception') return undefined;
    const url = new URL(`${this.baseUrl}/lei-records/${company.lei}/${relation}`);
    try {
      const parent = singleLeiRecordFrom(await this.http.json({ url }, signal));
      if (!parent)
        throw new ProviderError(this.id, 'malformed', `the ${relation} answer is not an LEI record`);
      return parent;
    } catch (error) {
      if (error instanceof ProviderError && error.failure === 'http_status' && error.status === 404)
        return undefined;
      throw error;
    }
  }

  /** Flags of the official lists on which the parent's legal name is found. */
  private async listedParent(
    match: CompanyMatch,
    link: OwnershipLink,
    query: SourceQuery,
    signal: AbortSignal,
  ): Promise<Flag[]> {
    const listings = await this.officialLists.screenOfficialLists(
      { entity: link.parent.legalName, type: 'entity', threshold: query.threshold, limit: query.limit },
      signal,
    );
    return listings.map((listing) => listedParentFlag(match, link, listing));
  }

  private asFailure(reason: unknown): ProviderError {
    return reason instanceof ProviderError
      ? reason
      : new ProviderError(this.id, 'network', 'the parent look-up failed');
  }
}
