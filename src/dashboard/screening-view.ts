import type { StoredDecision } from '../screening/decisions/decision-store.js';
import type { ScreenedRequest } from '../screening/screened-request.js';
import type { ScreenedFlag, ScreeningResult } from '../screening/screening-result.js';
import type { Flag } from '../sources/flag.js';
import { registeredList } from '../sources/lists/list-registry.js';
import type { FailedSource, SourceFailureReason } from '../sources/source-failure.js';
import type { StaleSource } from '../sources/stale-source.js';
import { type DecisionView, decisionView } from './decision-view.js';
import { type FactComparison, factComparisons } from './fact-comparisons.js';
import { templateHelpers } from './formatting.js';

/** One line of a flag's record, as text. */
export interface Fact {
  label: string;
  value: string;
}

export interface TokenPairView {
  query: string;
  candidate: string;
  how: string;
  score: string;
}

export interface ExplanationView {
  matchedName: string;
  method: string;
  preparedQuery: string;
  preparedName: string;
  pairs: TokenPairView[];
  unmatchedQuery: string[];
  unmatchedName: string[];
  penalties: string[];
}

export interface FlagView {
  id: string | undefined;
  type: string;
  source: string;
  list: string;
  score: string;
  matchedName: string;
  explanation: ExplanationView | undefined;
  /** Each fact the request gave (birth date, countries, identifiers), as compared with the record. */
  comparisons: FactComparison[];
  facts: Fact[];
  /** The source's own record, as indented JSON. */
  sourceRecord: string | undefined;
  /** The decision that applies to the flag, when one does. */
  decision: DecisionView | undefined;
}

/** Fields of a flag's details shown as facts, in this order, with these labels. */
const FACT_LABELS: [string, string][] = [
  ['name', 'Listed name'],
  ['kind', 'Kind'],
  ['source_id', 'Id in the source'],
  ['aliases', 'Other names'],
  ['programs', 'Programmes'],
  ['birth_dates', 'Dates of birth'],
  ['places_of_birth', 'Places of birth'],
  ['nationalities', 'Nationalities'],
  ['countries', 'Countries'],
  ['identifiers', 'Identifiers'],
  ['addresses', 'Addresses'],
  ['remarks', 'Remarks'],
  ['listed_on', 'Listed on'],
  ['url', 'Link'],
];
const NOT_FACTS = new Set([
  'matched_name',
  'matched_name_type',
  'match_explanation',
  'source_record',
  'previous_decision',
  'kind_mismatch',
]);

/** A value of a record as one line of text: lists joined by "; ", objects as their values. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value))
    return value
      .map(text)
      .filter((v) => v !== '')
      .join('; ');
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => text(v) !== '');
    return entries
      .map(([k, v]) => (['name', 'value', 'full'].includes(k) ? text(v) : `${k}: ${text(v)}`))
      .join(', ');
  }
  return String(value);
}

function label(key: string): string {
  const spaced = key.replace(/_/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

function facts(details: Record<string, unknown>): Fact[] {
  const known = FACT_LABELS.map(([key, name]) => ({ label: name, value: text(details[key]) }));
  const others = Object.keys(details)
    .filter((key) => !NOT_FACTS.has(key) && !FACT_LABELS.some(([k]) => k === key))
    .map((key) => ({ label: label(key), value: text(details[key]) }));
  // Every flag says whether it is of another kind than the type screened; only a yes is news.
  const kind =
    details.kind_mismatch === true
      ? [{ label: 'Kind mismatch', value: 'of another kind than the type screened (score lowered)' }]
      : [];
  return [...known, ...kind, ...others].filter((fact) => fact.value !== '');
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

function penalty(p: Record<string, unknown>): string {
  const parts = [String(p.reason ?? 'penalty')];
  if (typeof p.factor === 'number') parts.push(`score × ${p.factor}`);
  if (typeof p.cap === 'number') parts.push(`capped at ${p.cap}`);
  const tokens = strings(p.tokens);
  if (tokens.length > 0) parts.push(`tokens: ${tokens.join(', ')}`);
  return parts.join(', ');
}

function explanation(raw: unknown): ExplanationView | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const e = raw as Record<string, unknown>;
  const pairs = Array.isArray(e.token_pairs) ? (e.token_pairs as Record<string, unknown>[]) : [];
  const penalties = Array.isArray(e.penalties) ? (e.penalties as Record<string, unknown>[]) : [];
  return {
    matchedName: text(e.matched_name),
    method: text(e.method),
    preparedQuery: text(e.prepared_query),
    preparedName: text(e.prepared_name),
    pairs: pairs.map((p) => ({
      query: text(p.query),
      candidate: text(p.candidate),
      how: text(p.how),
      score: typeof p.score === 'number' ? p.score.toFixed(2) : text(p.score),
    })),
    unmatchedQuery: strings(e.unmatched_query_tokens),
    unmatchedName: strings(e.unmatched_name_tokens),
    penalties: penalties.map(penalty),
  };
}

/**
 * A flag as the console shows it: the row's columns, the record's facts, why it matched, and the
 * decision on it: the one the screening applied, or else a standing one taken since on the same
 * state of the record (`standing`).
 */
export function flagView(
  flag: Flag & Partial<Pick<ScreenedFlag, 'id' | 'decision'>>,
  standing: readonly StoredDecision[] = [],
): FlagView {
  const details = flag.details ?? {};
  // Screenings stored before flags had ids have no decision to show.
  const later = standing.find((d) => d.flag_id === flag.id && d.record_hash === details.record_hash);
  return {
    id: flag.id,
    type: flag.type,
    source: flag.source,
    list: flag.list,
    score: flag.match_score.toFixed(2),
    matchedName: text(details.matched_name ?? details.name),
    explanation: explanation(details.match_explanation),
    comparisons: factComparisons(flag),
    facts: facts(details),
    sourceRecord:
      details.source_record === undefined ? undefined : JSON.stringify(details.source_record, null, 2),
    decision: flag.decision
      ? decisionView(flag.decision, false)
      : later
        ? decisionView({ ...later, value: later.decision }, true)
        : undefined,
  };
}

/** A source a screening did not hear from, as the console names it. */
export interface FailedSourceView {
  id: string;
  name: string;
  why: string;
}

const FAILURE_REASONS: Record<SourceFailureReason, string> = {
  timeout: 'no answer in time',
  unavailable: 'not available (not loaded, or skipped after repeated failures)',
  error: 'answered with an error',
};

function failedSourceView(failed: FailedSource): FailedSourceView {
  return {
    id: failed.source,
    name: registeredList(failed.source)?.title ?? failed.source,
    why: FAILURE_REASONS[failed.reason] ?? failed.reason,
  };
}

/** An authority's own list (what `complete` is about), as opposed to an aggregator or a provider. */
function isOfficialList(failed: FailedSource): boolean {
  return registeredList(failed.source)?.kind === 'direct_feed';
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** A country code with its name (`GB (United Kingdom)`). */
function country(code: string): string {
  return `${code} (${regionNames.of(code) ?? code})`;
}

/**
 * What the screening was asked, line by line (the API's `request`; with the reference, which the
 * answer gives apart). Undefined for a screening stored before requests were recorded.
 */
export function requestView(
  request: ScreenedRequest | null,
  reference: string | undefined,
): Fact[] | undefined {
  if (request === null) return undefined;
  const notGiven = 'Not given';
  const identifier = (id: ScreenedRequest['identifiers'][number]) =>
    `${label(id.type)} ${id.value}${id.country ? `, issued by ${country(id.country)}` : ''}`;
  return [
    { label: 'Name as given', value: request.query ?? 'None: identifiers only' },
    { label: 'Type', value: request.type },
    ...(reference !== undefined ? [{ label: 'Reference', value: reference }] : []),
    { label: 'Birth date', value: request.date_of_birth ?? notGiven },
    { label: 'Countries', value: request.countries.map(country).join('; ') || notGiven },
    { label: 'Identifiers', value: request.identifiers.map(identifier).join('; ') || notGiven },
    { label: 'Threshold', value: request.options.threshold.toFixed(2) },
    { label: 'Sources selected', value: request.options.sources.join(', ') },
    { label: 'Adverse media', value: request.options.include_adverse_media ? 'Included' : 'Not included' },
  ];
}

/** A list searched although stale, as the console names it: its title, date and age. */
function staleListView(stale: StaleSource) {
  return {
    id: stale.source,
    name: registeredList(stale.source)?.title ?? stale.source,
    published:
      stale.list_date === null
        ? 'not confirmed current for too long'
        : `published ${stale.list_date}, ${stale.list_age_days} ${stale.list_age_days === 1 ? 'day' : 'days'} before the screening`,
  };
}

/** A screening as the console shows it. */
export function screeningView(result: ScreeningResult, standing: readonly StoredDecision[] = []) {
  return {
    ...result,
    asked: requestView(result.request, result.reference),
    riskClass: templateHelpers.riskClass(result.risk_level, result.complete),
    riskLabel: templateHelpers.riskLabel(result.risk_level, result.complete),
    listsNotChecked: result.sources_failed.filter(isOfficialList).map(failedSourceView),
    otherFailures: result.sources_failed.filter((f) => !isOfficialList(f)).map(failedSourceView),
    staleLists: result.sources_stale.map(staleListView),
    flagViews: result.flags.map((flag) => flagView(flag, standing)),
  };
}
