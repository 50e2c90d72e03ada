import { Type } from 'typebox';
import { roundMilliseconds, wholeMilliseconds } from '../../clock.js';
import {
  FACT_LIST_MAX,
  IDENTIFIER_TYPES,
  IDENTIFIER_VALUE_MAX_CHARS,
} from '../../screening/screening-facts.js';
import { QUERY_MAX_CODE_POINTS, REFERENCE_MAX_CHARS } from '../../screening/screening-policy.js';
import { QUERY_TYPES, type QueryType } from '../../screening/screening-result.js';
import { KNOWN_SOURCE_IDS } from '../../screening/source-ids.js';
import type { App, AppContext } from '../context.js';
import {
  AppliedDecisionSchema,
  BODY_PROBLEMS,
  COMPLETE_DESCRIPTION,
  DateTime,
  json,
  KEY_AUTH_PROBLEMS,
  Nullable,
  problemResponses,
  SCREENING_FAILED_RESPONSE,
  SourceFailureSchema,
  StaleSourceSchema,
  Uuid,
} from '../schemas.js';

export const FlagSchema = Type.Object(
  {
    id: Type.String({
      description:
        'The listed record, the same in every screening that finds it (source:record id, e.g. ofac_sdn:36): decisions are taken on it',
    }),
    type: Type.Union([
      Type.Literal('sanctions'),
      Type.Literal('pep'),
      Type.Literal('watchlist'),
      Type.Literal('adverse_media'),
    ]),
    source: Type.String({ description: 'Source id, e.g. ofac_sdn' }),
    list: Type.String({ description: 'List or programme, e.g. SDN' }),
    match_score: Type.Number({ minimum: 0, maximum: 1 }),
    details: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The listed record (source_id, kind, name, aliases, programs, birth_dates, nationalities, identifiers, ' +
          'addresses, remarks, listed_on, url, source_record), matched_name and match_explanation; ' +
          "kind_mismatch, true for a record of another kind than the query's type, found by a strong name match; " +
          "record_hash, the hash of the record's content, which changes when the list changes the record; " +
          'previous_decision, a decision on the record taken before the list changed it (it no longer applies)',
      },
    ),
    decision: Type.Optional(AppliedDecisionSchema),
  },
  { $id: 'Flag', additionalProperties: false },
);

// Unions mapped from a list type as `never`: the static type is given (the schema is the same).
const queryType = (options?: { default: string; description: string }) =>
  Type.Unsafe<QueryType>(
    Type.Union(
      QUERY_TYPES.map((t) => Type.Literal(t)),
      options,
    ),
  );

const IdentifierSchema = Type.Object(
  {
    type: Type.Unsafe<string>(Type.Union(IDENTIFIER_TYPES.map((t) => Type.Literal(t)))),
    value: Type.String({ minLength: 1, maxLength: IDENTIFIER_VALUE_MAX_CHARS }),
    country: Type.Optional(Type.String({ maxLength: 2, description: 'ISO 3166-1 alpha-2 of the issuer' })),
  },
  { additionalProperties: false },
);

/** What a screening was asked, as screened (src/screening/screened-request.ts). */
export const ScreenedRequestSchema = Type.Object(
  {
    query: Nullable(
      Type.String({
        description:
          'The query as given, trimmed and without characters that show nothing; null when only identifiers were given',
      }),
    ),
    type: queryType(),
    date_of_birth: Nullable(
      Type.String({ description: 'YYYY, YYYY-MM or YYYY-MM-DD; null when none was given' }),
    ),
    countries: Type.Array(Type.String({ minLength: 2, maxLength: 2 }), {
      description: 'ISO 3166-1 alpha-2 codes as screened (upper case, UK as GB, each once); [] when none',
    }),
    identifiers: Type.Array(IdentifierSchema, { description: 'As screened (values trimmed); [] when none' }),
    options: Type.Object(
      {
        threshold: Type.Number({
          minimum: 0,
          maximum: 1,
          description: 'The threshold applied (default 0.5)',
        }),
        sources: Type.Array(Type.String(), {
          description:
            'The sources selected that apply to the type: those asked (all configured ones by default)',
        }),
        include_adverse_media: Type.Boolean({ description: 'As asked, or the plan default' }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'ScreenedRequest', additionalProperties: false },
);

export const ScreeningResultSchema = Type.Object(
  {
    id: Uuid,
    entity: Type.String({
      description:
        'The query trimmed, NFKC-normalised, case-folded, whitespace collapsed and without characters that show nothing',
    }),
    reference: Type.Optional(Type.String({ description: 'The reference the request gave, trimmed' })),
    request: Nullable(ScreenedRequestSchema, {
      description:
        'What was asked, as screened: the query, type, facts and options after defaults. Null for screenings stored before requests were recorded',
    }),
    risk_score: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'From the flags, less those cleared as false positives',
    }),
    risk_level: Type.Union([
      Type.Literal('low'),
      Type.Literal('medium'),
      Type.Literal('high'),
      Type.Literal('critical'),
    ]),
    flags: Type.Array(FlagSchema, { description: 'Every match at or above the threshold, strongest first' }),
    sources_queried: Type.Array(Type.String()),
    sources_matched: Type.Array(Type.String()),
    sources_failed: Type.Array(SourceFailureSchema, {
      description: 'Selected sources that gave no answer, and why; empty when every one answered',
    }),
    complete: Type.Boolean({ description: COMPLETE_DESCRIPTION }),
    sources_stale: Type.Array(StaleSourceSchema, {
      description:
        'Selected lists that were searched although stale (published longer ago than LISTS_MAX_AGE_DAYS allows, ' +
        'or not confirmed current for too long); empty when every list is fresh',
    }),
    cache_hit: Type.Boolean(),
    duration_ms: Type.Integer({
      minimum: 0,
      description: 'From request receipt to response, in whole milliseconds',
    }),
    timestamp: { ...DateTime, description: 'When the screening was executed (UTC)' },
  },
  { $id: 'ScreeningResult', additionalProperties: false },
);

export const ScreenRequestProperties = {
  query: Type.Optional(
    Type.String({
      maxLength: QUERY_MAX_CODE_POINTS * 4,
      description: '2 to 500 characters after trimming; may be left out when `identifiers` are given',
    }),
  ),
  reference: Type.Optional(
    Type.String({
      maxLength: REFERENCE_MAX_CHARS * 4,
      description: `Your own id of the party, at most ${REFERENCE_MAX_CHARS} characters: decisions on its flags belong to it (without one, to the query and the facts given)`,
    }),
  ),
  date_of_birth: Type.Optional(
    Type.String({
      maxLength: 10,
      description:
        "The party's birth date, `YYYY`, `YYYY-MM` or `YYYY-MM-DD`: a contradicting one lowers a match",
    }),
  ),
  countries: Type.Optional(
    Type.Array(Type.String({ maxLength: 2 }), {
      maxItems: FACT_LIST_MAX,
      description: "ISO 3166-1 alpha-2 codes of the party's countries (nationality, citizenship, residence)",
    }),
  ),
  identifiers: Type.Optional(
    Type.Array(IdentifierSchema, {
      maxItems: FACT_LIST_MAX,
      description:
        'Identifiers of the party: one of the same kind and value on a listed record is a match of 1.0',
    }),
  ),
  type: Type.Optional(
    queryType({
      default: 'entity',
      description:
        'What the query names; it is matched against listed records of that kind (and records of no stated kind). `entity` matches every kind.',
    }),
  ),
  options: Type.Optional(
    Type.Object(
      {
        threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.5 })),
        sources: Type.Optional(
          Type.Array(Type.String(), {
            minItems: 1,
            maxItems: 50,
            description: `Limit the screening to these sources; known ids: ${KNOWN_SOURCE_IDS.join(', ')}`,
          }),
        ),
        include_adverse_media: Type.Optional(
          Type.Boolean({
            description: 'Default: true on plans with adverse media; true on Starter is refused',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
};

const ScreenRequest = Type.Object(ScreenRequestProperties, { additionalProperties: false });

export function screenRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/screen',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['screening'],
        summary: "Screen a person's or an entity's name against every configured source",
        security: [{ apiKey: [] }],
        body: ScreenRequest,
        response: {
          200: json(
            ScreeningResultSchema,
            'The screening (cache_hit true when answered from the 6-hour cache)',
          ),
          ...problemResponses(...KEY_AUTH_PROBLEMS, ...BODY_PROBLEMS, 402),
          500: SCREENING_FAILED_RESPONSE,
        },
      },
    },
    async (request, reply) => {
      const answer = await ctx.screening.screenToJson(request.apiKey!, {
        request: request.body,
        requestId: String(request.id),
      });
      // The answer is already JSON bytes (see answerBytes): nothing is serialised or encoded after
      // this, so duration_ms, measured here, runs from the request's receipt to its response being sent.
      // The answer carries whole milliseconds; Server-Timing the precise figure of the same reading.
      const elapsed = reply.elapsedTime;
      const json = answer.json(wholeMilliseconds(elapsed));
      reply.header('Server-Timing', `screen;dur=${roundMilliseconds(elapsed)}`);
      // A buffer payload is sent as it is; the typed reply only knows the object form.
      return reply.type('application/json; charset=utf-8').send(json as never);
    },
  );

  app.get(
    '/v1/screen/:id',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['screening'],
        summary: 'A stored screening of your account (kept 24 months)',
        security: [{ apiKey: [] }],
        params: Type.Object({ id: Type.String({ description: 'Screening id' }) }),
        response: {
          200: json(ScreeningResultSchema, 'The stored screening'),
          ...problemResponses(...KEY_AUTH_PROBLEMS, 404),
        },
      },
    },
    async (request) => ctx.screening.get(request.apiKey!.accountId, request.params.id),
  );
}
