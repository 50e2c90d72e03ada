import { type TSchema, Type } from 'typebox';

/** Responses of every status an operation can return; errors are problem documents. */
export function problemResponses(...statuses: number[]): Record<number, unknown> {
  const responses: Record<number, unknown> = {};
  for (const status of statuses) {
    responses[status] = {
      description: PROBLEM_DESCRIPTIONS[status] ?? 'Error',
      content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
    };
  }
  return responses;
}

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request (invalid JSON, or bytes not valid in the charset of the body)',
  401: 'Missing, malformed or unknown credentials',
  402: "Monthly screening quota exhausted, fewer screenings left than asked for, or the plan's monitors reached",
  403: 'Key revoked, account suspended, or feature not on the plan',
  404: 'Not found (or belongs to another account)',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Request body over 1 MB',
  415: 'Request body is not JSON, or its charset is not supported',
  422: 'Validation failed',
  429: 'Rate limit exceeded; see Retry-After',
  500: 'Internal error',
  503: 'Dependency unavailable',
};

/** The problems any authenticated customer operation can produce, besides its own. */
export const KEY_AUTH_PROBLEMS = [401, 403, 429, 500, 503];
export const ADMIN_AUTH_PROBLEMS = [401, 500, 503];
export const BODY_PROBLEMS = [400, 413, 415, 422];

export function json<T extends TSchema>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export const PlanIdSchema = Type.Union(
  [Type.Literal('starter'), Type.Literal('professional'), Type.Literal('enterprise')],
  { description: 'Plan of the account' },
);

/** The schema, or null. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(
  schema: T,
  options?: { description: string },
) => Type.Union([schema, Type.Null()], options);

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });

export const AccountSchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    plan: PlanIdSchema,
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')]),
    rate_limit_per_minute: Type.Union([Type.Integer(), Type.Null()]),
    created_at: DateTime,
  },
  { $id: 'Account', additionalProperties: false },
);

export const ApiKeySchema = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    prefix: Type.String(),
    last4: Type.String(),
    created_at: DateTime,
    last_used_at: Type.Union([DateTime, Type.Null()]),
    revoked_at: Type.Union([DateTime, Type.Null()]),
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  },
  { $id: 'ApiKey', additionalProperties: false },
);

export const CreatedApiKeySchema = Type.Object(
  {
    id: Uuid,
    key: Type.String({ description: 'The API key. Shown only in this response: store it now.' }),
    name: Type.String(),
    prefix: Type.String(),
    last4: Type.String(),
    created_at: DateTime,
  },
  { $id: 'CreatedApiKey', additionalProperties: false },
);

export const DashboardUserSchema = Type.Object(
  {
    id: Uuid,
    account_id: Uuid,
    email: Type.String({ description: 'The sign-in name, in lower case' }),
    created_at: DateTime,
  },
  { $id: 'DashboardUser', additionalProperties: false },
);

export const CreatedDashboardUserSchema = Type.Object(
  {
    id: Uuid,
    account_id: Uuid,
    email: Type.String({ description: 'The sign-in name, in lower case' }),
    created_at: DateTime,
    password: Type.Optional(
      Type.String({
        description: 'The generated password, when the request had none. Shown only in this response.',
      }),
    ),
  },
  { $id: 'CreatedDashboardUser', additionalProperties: false },
);

export const KeyIdParams = Type.Object({ id: Type.String({ description: 'Key id' }) });
export const KeyNameSchema = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' });

/** One entry of a screening's `sources_failed` (also in batch results). */
export const SourceFailureSchema = Type.Object(
  {
    source: Type.String({ description: 'Source id, e.g. un_sc' }),
    reason: Type.Union([Type.Literal('timeout'), Type.Literal('unavailable'), Type.Literal('error')], {
      description:
        'timeout: no answer in time; unavailable: could not be asked (a list not loaded, a provider ' +
        'skipped after repeated failures); error: it answered with an error',
    }),
  },
  { $id: 'SourceFailure', additionalProperties: false },
);

/** A list's state as health and the operator API report it. */
export const ListStateSchema = Type.Union(
  [Type.Literal('fresh'), Type.Literal('stale'), Type.Literal('failed'), Type.Literal('missing')],
  {
    description:
      'fresh: loaded, checked recently and published within max_age_days; stale: published longer ago ' +
      'than max_age_days, last check too old, or new version rejected (still screened); failed: last ' +
      'refresh failed (the previous version stays in service); missing: not loaded',
  },
);

/** How old a list's version in service is (health's `lists`, the operator API's list status). */
export const ListPublicationProperties = {
  list_date: Nullable(
    Type.String({
      description:
        "The list's publication date (YYYY-MM-DD): the date its file states, else its download's Last-Modified " +
        "(a mirror file's modification time); null when neither is known",
    }),
  ),
  list_age_days: Nullable(Type.Integer({ description: 'Whole days from list_date to now' })),
  max_age_days: Type.Integer({
    minimum: 0,
    description: 'Past this age the list is stale (LISTS_MAX_AGE_DAYS); 0: never by its age',
  }),
};

export const ListPublicationSchema = Type.Object(
  { state: ListStateSchema, ...ListPublicationProperties },
  { $id: 'ListPublication', additionalProperties: false },
);

/** One entry of a screening's `sources_stale`. */
export const StaleSourceSchema = Type.Object(
  {
    source: Type.String({ description: 'List id, e.g. ofac_sdn' }),
    list_date: Nullable(Type.String({ description: "The list's publication date (YYYY-MM-DD)" })),
    list_age_days: Nullable(Type.Integer({ description: 'Whole days from list_date to the screening' })),
  },
  { $id: 'StaleSource', additionalProperties: false },
);

/**
 * The 500 of an operation that screens: an unexpected failure, or every selected source failed
 * (`/problems/sources-failed`), which names each of them and why in `sources_failed`.
 */
export const SCREENING_FAILED_RESPONSE = {
  description:
    'Internal error, or every selected source failed (`/problems/sources-failed`: each named in `sources_failed` with its reason)',
  content: { 'application/problem+json': { schema: Type.Ref('Problem') } },
};

/** What `complete` means, wherever a screening's outcome is reported. */
export const COMPLETE_DESCRIPTION =
  'false when an official list selected for the screening gave no answer (see sources_failed): ' +
  'the result then does not cover that list';

const ACTOR_PROPERTIES = {
  type: Type.Union([Type.Literal('api_key'), Type.Literal('dashboard_user')]),
  id: { ...Uuid, description: 'The key id, or the dashboard user id' },
};

export const DecidedBySchema = Type.Object(ACTOR_PROPERTIES, {
  $id: 'DecidedBy',
  additionalProperties: false,
});

/**
 * Who did something else (closed an alert), the same shape without the `$id`: a response that
 * also carries flags with their decisions may hold `DecidedBy` only once.
 */
export const ActorSchema = Type.Object(ACTOR_PROPERTIES, { additionalProperties: false });

export const DecisionValueSchema = Type.Union([Type.Literal('false_positive'), Type.Literal('true_match')], {
  description:
    'false_positive: the party is not this listed record (the flag no longer counts toward the risk); true_match: it is',
});

/** A decision as a flag it applies to carries it. */
export const AppliedDecisionSchema = Type.Object(
  {
    id: Uuid,
    value: DecisionValueSchema,
    note: Type.String(),
    decided_by: DecidedBySchema,
    decided_at: DateTime,
  },
  { $id: 'AppliedDecision', additionalProperties: false },
);
