import type { Plan } from '../accounts/plans.js';
import { type FieldError, ServiceError } from '../errors.js';
import type { QueryFacts } from '../matching/index.js';
import type { Source } from '../sources/source.js';
import { codePointLength, holdsLetterOrDigit, normaliseQuery, visibleText } from './normalise-query.js';
import { type ScreenedRequest, screenedRequest } from './screened-request.js';
import { resolveScreeningFacts, type ScreeningFactsRequest } from './screening-facts.js';
import {
  DEFAULT_MATCH_THRESHOLD,
  QUERY_MAX_CODE_POINTS,
  QUERY_MIN_CODE_POINTS,
  REFERENCE_MAX_CHARS,
} from './screening-policy.js';
import type { EffectiveOptions, QueryType } from './screening-result.js';
import { isKnownSourceId } from './source-ids.js';

export interface ScreeningRequest extends ScreeningFactsRequest {
  /** May be left out when `identifiers` are given. */
  query?: string | undefined;
  type?: QueryType | undefined;
  /** The caller's own id of the party: decisions on its flags belong to it (screening-subject.ts). */
  reference?: string | undefined;
  options?:
    | {
        threshold?: number | undefined;
        sources?: string[] | undefined;
        include_adverse_media?: boolean | undefined;
      }
    | undefined;
}

export interface ResolvedScreening {
  entity: string;
  type: QueryType;
  facts: QueryFacts;
  /** No name was given: only identifiers are looked up. */
  identifiersOnly: boolean;
  /** The caller's reference, trimmed; undefined when none (or only spaces) was given. */
  reference: string | undefined;
  options: EffectiveOptions;
  sources: Source[];
  /** What was asked, as it is screened: reported and stored with the answer. */
  request: ScreenedRequest;
}

function invalid(detail: string, errors: FieldError[]): ServiceError {
  return new ServiceError('validation-failed', detail, errors);
}

/**
 * Checks what the schema cannot (length in code points after trimming, source ids, plan features)
 * and applies the defaults: the validation step before quota and screening.
 */
export function resolveScreeningRequest(
  request: ScreeningRequest,
  plan: Plan,
  configured: readonly Source[],
  today: string,
): ResolvedScreening {
  const { facts, errors } = resolveScreeningFacts(request, today, request.type);
  if (errors.length > 0) throw invalid('Some of the facts given about the party are not valid.', errors);
  const identifiersOnly = request.query === undefined && facts.identifiers !== undefined;
  if (request.query === undefined && !identifiersOnly) {
    throw invalid('The query is missing.', [
      { pointer: '/query', detail: 'is required unless identifiers are given' },
    ]);
  }
  const query = request.query ?? facts.identifiers![0]!.value;
  const entity = normaliseQuery(query);
  if (!holdsLetterOrDigit(entity)) {
    throw invalid('The query holds no letter or digit.', [
      { pointer: '/query', detail: 'must hold at least one letter or digit' },
    ]);
  }
  // Counted as shown: characters that show nothing are not part of the name (normaliseQuery).
  const shown = visibleText(query).trim();
  const length = codePointLength(shown);
  if (length < QUERY_MIN_CODE_POINTS || length > QUERY_MAX_CODE_POINTS) {
    throw invalid('The query is too short or too long.', [
      {
        pointer: '/query',
        detail: `must be ${QUERY_MIN_CODE_POINTS} to ${QUERY_MAX_CODE_POINTS} characters after trimming (got ${length})`,
      },
    ]);
  }
  const reference = request.reference?.trim() || undefined;
  if (reference !== undefined && codePointLength(reference) > REFERENCE_MAX_CHARS) {
    throw invalid('The reference is too long.', [
      { pointer: '/reference', detail: `must be at most ${REFERENCE_MAX_CHARS} characters` },
    ]);
  }
  const requested = request.options?.sources;
  const unknown = (requested ?? []).filter((id) => !isKnownSourceId(id));
  if (unknown.length > 0) {
    throw invalid(`Unknown source ids: ${unknown.join(', ')}.`, [
      { pointer: '/options/sources', detail: `unknown source ids: ${unknown.join(', ')}` },
    ]);
  }
  const adverseMedia = request.options?.include_adverse_media;
  if (adverseMedia === true && !plan.adverseMedia) {
    throw new ServiceError(
      'plan-feature-unavailable',
      'Adverse-media screening is not part of the Starter plan.',
    );
  }
  const includeAdverseMedia = adverseMedia ?? plan.adverseMedia;
  const type = request.type ?? 'entity';
  const selected = configured.filter(
    (s) =>
      (requested === undefined || requested.includes(s.id)) &&
      (includeAdverseMedia || s.kind !== 'adverse_media'),
  );
  const sources = selected.filter((s) => s.appliesTo?.(type) ?? true);
  if (sources.length === 0 && requested === undefined) {
    throw new ServiceError(
      'service-unavailable',
      selected.length === 0
        ? 'No screening source is configured on this service.'
        : `No screening source configured on this service applies to a ${type} query.`,
    );
  }
  if (selected.length === 0) {
    throw invalid('None of the selected sources is configured on this service.', [
      { pointer: '/options/sources', detail: 'no configured source selected' },
    ]);
  }
  if (sources.length === 0) {
    throw invalid(`None of the selected sources applies to a ${type} query.`, [
      { pointer: '/options/sources', detail: `no selected source screens a ${type}` },
    ]);
  }
  const options: EffectiveOptions = {
    threshold: request.options?.threshold ?? DEFAULT_MATCH_THRESHOLD,
    sources: sources.map((s) => s.id),
    include_adverse_media: includeAdverseMedia,
  };
  return {
    entity,
    type,
    facts,
    identifiersOnly,
    reference,
    options,
    sources,
    request: screenedRequest(identifiersOnly ? null : shown, type, facts, options),
  };
}
