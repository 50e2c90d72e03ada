import { nameTypeAdjusted } from '../../matching/entity-score.js';
import { compareNames, type MatchExplanation, type NameType, type QueryType } from '../../matching/index.js';
import type { Flag } from '../flag.js';
import { explanationForApi } from '../lists/list-flag.js';
import type { SourceQuery } from '../source.js';

/**
 * One entity of a yente `/match` answer (yente/data/common.py, `ScoredEntityResponse`), with only
 * what was well-formed. Property values are lists of strings, or of nested entities when asked
 * for; nested entities and non-string values are left out.
 */
export interface YenteEntity {
  id: string;
  caption: string;
  schema: string;
  properties: Record<string, string[]>;
  datasets: string[];
  firstSeen: string | null;
  lastSeen: string | null;
  /** yente's own score (its algorithm, its calibration). */
  score: number | null;
}

/** Topics (FollowTheMoney) that make a person a politically exposed person or their relative/associate. */
export const PEP_TOPICS = ['role.pep', 'role.rca'];
/** At most this many names of one entity are scored: some carry dozens of translations. */
export const MAX_NAMES_SCORED = 60;

const ENTITY_PAGE = 'https://www.opensanctions.org/entities/';

/** The flag of one entity when one of its names matches the query at or above the threshold. */
export function opensanctionsFlag(entity: YenteEntity, query: SourceQuery): Flag | undefined {
  const best = bestName(entity, query.entity, query.type);
  if (!best || best.score < query.threshold) return undefined;
  const props = entity.properties;
  const topics = props.topics ?? [];
  const pep = entity.schema === 'Person' && topics.some((t) => PEP_TOPICS.includes(t));
  return {
    type: pep ? 'pep' : 'watchlist',
    source: 'opensanctions',
    list: listingDataset(entity.datasets).toUpperCase(),
    match_score: best.score,
    details: {
      entity_id: entity.id,
      caption: entity.caption,
      schema: entity.schema,
      topics,
      datasets: entity.datasets,
      // The shape of the bulk mode's positions; the API gives only their names.
      positions: (props.position ?? []).map((name) => ({ name })),
      countries: countriesOf(props),
      birth_dates: props.birthDate ?? [],
      first_seen: entity.firstSeen,
      last_seen: entity.lastSeen,
      url: `${ENTITY_PAGE}${encodeURIComponent(entity.id)}/`,
      matched_name: best.name,
      matched_name_type: best.type,
      match_explanation: explanationForApi(best.explanation),
      provider_score: entity.score,
    },
  };
}

/**
 * The entity's name that matches the query best, scored by the service's own matcher so that the
 * score means what it means for the official lists. FollowTheMoney keeps the caption (the display
 * name), every spelling and translation in `name`, and `alias`, `previousName`, `weakAlias`.
 */
function bestName(entity: YenteEntity, query: string, type: QueryType): NameMatch | undefined {
  let best: NameMatch | undefined;
  for (const { name, type: nameType } of namesOf(entity).slice(0, MAX_NAMES_SCORED)) {
    const compared = compareNames(query, name, type, nameType);
    // Weak aliases count for less, exactly as in the list index (matching/entity-score.ts).
    const score = nameTypeAdjusted(compared.score, nameType);
    if (!best || score > best.score) {
      best = { name, type: nameType, score, explanation: { ...compared.explanation, score } };
    }
  }
  return best;
}

interface NameMatch {
  name: string;
  type: NameType;
  score: number;
  explanation: MatchExplanation;
}

function namesOf(entity: YenteEntity): { name: string; type: NameType }[] {
  const p = entity.properties;
  const typed: [readonly string[] | undefined, NameType][] = [
    [[entity.caption], 'primary'],
    [p.name, 'aka'],
    [p.alias, 'aka'],
    [p.previousName, 'fka'],
    [p.weakAlias, 'weak_aka'],
  ];
  const seen = new Set<string>();
  const names: { name: string; type: NameType }[] = [];
  for (const [values, type] of typed) {
    for (const name of values ?? []) {
      if (name.trim().length === 0 || seen.has(name)) continue;
      seen.add(name);
      names.push({ name, type });
    }
  }
  return names;
}

/**
 * The dataset a flag names: the entity's first, passing over OpenSanctions' enrichment datasets
 * (`ext_`, `ann_`), which list nobody, as the bulk mode does.
 */
function listingDataset(datasets: readonly string[]): string {
  return datasets.find((d) => !/^(ext|ann)_/.test(d)) ?? datasets[0] ?? 'opensanctions';
}

/** ISO codes from every country property, lower-cased as FtM writes them (real data has `SA`). */
function countriesOf(props: Record<string, string[]>): string[] {
  const codes = ['country', 'nationality', 'citizenship'].flatMap((p) => props[p] ?? []);
  return [...new Set(codes.map((c) => c.toLowerCase()))];
}

/**
 * The entities of the answer to query `key`. yente answers `{responses: {key: {status, results,
 * total, query}}, limit}`; a missing response or a status other than 200 means it did not answer.
 */
export function yenteResults(answer: unknown, key: string): YenteEntity[] | { problem: string } {
  const response = record(record(answer)?.responses)?.[key];
  const body = record(response);
  if (!body) return { problem: 'the answer holds no response to the query' };
  if (body.status !== undefined && body.status !== 200)
    return { problem: `answered the query with status ${String(body.status)}` };
  if (!Array.isArray(body.results)) return { problem: 'the answer has no result list' };
  return body.results.flatMap((item) => yenteEntity(item) ?? []);
}

function yenteEntity(item: unknown): YenteEntity | undefined {
  const raw = record(item);
  if (!raw || typeof raw.id !== 'string' || typeof raw.schema !== 'string') return undefined;
  const properties: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(record(raw.properties) ?? {})) {
    // A value is a list in yente's model, but single strings are found in real data.
    const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    if (values.length > 0) properties[key] = values;
  }
  const caption = typeof raw.caption === 'string' ? raw.caption : (properties.name?.[0] ?? raw.id);
  return {
    id: raw.id,
    caption,
    schema: raw.schema,
    properties,
    datasets: Array.isArray(raw.datasets)
      ? raw.datasets.filter((d): d is string => typeof d === 'string')
      : [],
    firstSeen: typeof raw.first_seen === 'string' ? raw.first_seen : null,
    lastSeen: typeof raw.last_seen === 'string' ? raw.last_seen : null,
    score: typeof raw.score === 'number' && Number.isFinite(raw.score) ? raw.score : null,
  };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
