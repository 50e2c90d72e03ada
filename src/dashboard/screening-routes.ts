import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { SignedInUser } from '../accounts/dashboard-sessions.js';
import { PLANS } from '../accounts/plans.js';
import { ServiceError } from '../errors.js';
import type { App, AppContext } from '../http/context.js';
import { DECISION_NOTE_MAX_CHARS } from '../screening/decisions/decision-service.js';
import { IDENTIFIER_TYPES } from '../screening/screening-facts.js';
import {
  DEFAULT_MATCH_THRESHOLD,
  QUERY_MAX_CODE_POINTS,
  REFERENCE_MAX_CHARS,
} from '../screening/screening-policy.js';
import type { ScreeningRequest } from '../screening/screening-request.js';
import { QUERY_TYPES, type QueryType } from '../screening/screening-result.js';
import { KNOWN_SOURCE_IDS } from '../screening/source-ids.js';
import { consoleRateLimit } from './console-rate-limit.js';
import { decisionName } from './decision-view.js';
import { formRefusal } from './form-errors.js';
import { historyFilter } from './history-filter.js';
import { screeningView } from './screening-view.js';
import { formField, formFields } from './session-guard.js';

const config = { dashboard: 'signed-in' as const };
const ScreeningParams = Type.Object({ id: Type.String() });
const HistoryQuery = Type.Object({
  before: Type.Optional(Type.String({ maxLength: 512 })),
  id: Type.Optional(Type.String({ maxLength: 200 })),
  name: Type.Optional(Type.String({ maxLength: QUERY_MAX_CODE_POINTS * 4 })),
  reference: Type.Optional(Type.String({ maxLength: REFERENCE_MAX_CHARS * 4 })),
  risk: Type.Optional(Type.String({ maxLength: 10 })),
  from: Type.Optional(Type.String({ maxLength: 10 })),
  to: Type.Optional(Type.String({ maxLength: 10 })),
});
const ResultQuery = Type.Object({
  answered: Type.Optional(Type.String({ maxLength: 10 })),
  decided: Type.Optional(Type.String({ maxLength: 40 })),
  refused: Type.Optional(Type.String({ maxLength: 10 })),
});

/** What the form was filled with, to show it again after a refusal. */
interface ConsoleForm {
  query: string;
  type: string;
  dateOfBirth: string;
  countries: string;
  identifierType: string;
  identifierValue: string;
  threshold: string;
  sources: string[];
  adverseMedia: boolean;
}

const FIELDS: Record<string, { field: string; label: string }> = {
  '/query': { field: 'query', label: 'The name' },
  '/type': { field: 'type', label: 'The type' },
  '/date_of_birth': { field: 'date_of_birth', label: 'The birth date' },
  '/countries': { field: 'countries', label: 'The country code' },
  '/identifiers': { field: 'identifier', label: 'The identifier' },
  '/options/threshold': { field: 'threshold', label: 'The threshold' },
  '/options/sources': { field: 'sources', label: 'The sources' },
};

function subjectOf(user: SignedInUser) {
  return { accountId: user.accountId, keyId: null, plan: user.plan, userId: user.userId };
}

async function renderConsole(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: { form?: ConsoleForm; error?: string; fieldErrors?: Record<string, string> },
) {
  const user = request.dashboardUser!;
  const usage = await ctx.usage.usage(subjectOf(user));
  // Offered where the plan has it and a source can answer it (GDELT may be switched off).
  const adverseMedia = PLANS[user.plan].adverseMedia && ctx.screening.hasAdverseMedia();
  return reply.code(status).viewAsync('console', {
    title: 'Screen a name',
    nav: 'screen',
    user,
    usage,
    adverseMediaOffered: adverseMedia,
    knownSources: KNOWN_SOURCE_IDS,
    defaultThreshold: DEFAULT_MATCH_THRESHOLD,
    queryMaxChars: QUERY_MAX_CODE_POINTS,
    identifierTypes: IDENTIFIER_TYPES,
    form: view.form ?? {
      query: '',
      type: 'entity',
      dateOfBirth: '',
      countries: '',
      identifierType: 'passport',
      identifierValue: '',
      threshold: '',
      sources: [],
      adverseMedia,
    },
    error: view.error,
    fieldErrors: view.fieldErrors ?? {},
  });
}

/** The form as a screening request, or the problems of its fields the service would not see. */
function readForm(request: FastifyRequest, user: SignedInUser) {
  const form: ConsoleForm = {
    query: formField(request, 'query'),
    type: formField(request, 'type') || 'entity',
    dateOfBirth: formField(request, 'date_of_birth').trim(),
    countries: formField(request, 'countries').trim(),
    identifierType: formField(request, 'identifier_type') || 'passport',
    identifierValue: formField(request, 'identifier_value').trim(),
    threshold: formField(request, 'threshold').trim(),
    sources: formFields(request, 'sources'),
    adverseMedia: formField(request, 'adverse_media') === 'yes',
  };
  const fieldErrors: Record<string, string> = {};
  if (!(QUERY_TYPES as readonly string[]).includes(form.type))
    fieldErrors.type = 'Choose what the name is of.';
  const threshold = form.threshold === '' ? undefined : Number(form.threshold);
  if (threshold !== undefined && !(Number.isFinite(threshold) && threshold >= 0 && threshold <= 1)) {
    fieldErrors.threshold = 'The threshold must be a number from 0 to 1, such as 0.5.';
  }
  if (!(IDENTIFIER_TYPES as readonly string[]).includes(form.identifierType))
    fieldErrors.identifier = 'Choose the kind of identifier.';
  const countries = form.countries.split(/[\s,;]+/).filter(Boolean);
  // A name may be left out when an identifier is given, as in the API.
  const nameless = form.query.trim() === '' && form.identifierValue !== '';
  const screening: ScreeningRequest = {
    ...(nameless ? {} : { query: form.query }),
    type: form.type as QueryType,
    ...(form.dateOfBirth !== '' ? { date_of_birth: form.dateOfBirth } : {}),
    ...(countries.length > 0 ? { countries } : {}),
    ...(form.identifierValue !== ''
      ? { identifiers: [{ type: form.identifierType, value: form.identifierValue }] }
      : {}),
    options: {
      threshold,
      sources: form.sources.length > 0 ? form.sources : undefined,
      // The box is offered where the plan has adverse media (and a source of it is configured);
      // elsewhere the plan's default (none) applies.
      include_adverse_media: PLANS[user.plan].adverseMedia ? form.adverseMedia : undefined,
    },
  };
  return { form, fieldErrors, screening };
}

export function screeningRoutes(app: App, ctx: AppContext): void {
  app.get('/screen', { config, schema: { hide: true } }, async (request, reply) =>
    renderConsole(ctx, request, reply, 200, {}),
  );

  // The same service call as POST /v1/screen: quota, cache, storage, audit and webhooks behave
  // exactly as through the API. The result is then shown at its own address (reloading it does
  // not screen again).
  app.post('/screen', { config, schema: { hide: true } }, async (request, reply) => {
    const user = request.dashboardUser!;
    const { form, fieldErrors, screening } = readForm(request, user);
    const limited = await consoleRateLimit(ctx, user.userId, reply, 'names screened');
    if (limited) return renderConsole(ctx, request, reply, 429, { form, error: limited });
    if (Object.keys(fieldErrors).length > 0)
      return renderConsole(ctx, request, reply, 422, { form, fieldErrors });
    try {
      const result = await ctx.screening.screen(subjectOf(user), {
        request: screening,
        requestId: String(request.id),
      });
      const answered = result.cache_hit ? 'cache' : 'live';
      return reply.redirect(`/dashboard/screenings/${result.id}?answered=${answered}`, 303);
    } catch (error) {
      // `/countries/2` and `/identifiers/0/value` are about the fields `/countries` and `/identifiers`.
      const refusal = formRefusal(
        error,
        (pointer) => FIELDS[pointer] ?? FIELDS[pointer.split('/', 2).join('/')],
      );
      return renderConsole(ctx, request, reply, refusal.status, {
        form,
        error: refusal.error,
        fieldErrors: refusal.fields,
      });
    }
  });

  app.get(
    '/screenings',
    { config, schema: { hide: true, querystring: HistoryQuery } },
    async (request, reply) => {
      const user = request.dashboardUser!;
      const lookup = request.query.id?.trim();
      if (lookup) return reply.redirect(`/dashboard/screenings/${encodeURIComponent(lookup)}`, 303);
      const search = historyFilter(request.query);
      const page = await ctx.screening.recent(
        user.accountId,
        { before: request.query.before },
        search.filter,
      );
      return reply.viewAsync('screenings', {
        title: 'Screenings',
        nav: 'screenings',
        user,
        page,
        paged: request.query.before !== undefined,
        search,
      });
    },
  );

  app.get(
    '/screenings/:id',
    { config, schema: { hide: true, params: ScreeningParams, querystring: ResultQuery } },
    async (request, reply) => {
      const user = request.dashboardUser!;
      try {
        const result = await ctx.screening.get(user.accountId, request.params.id);
        const standing = await ctx.decisions.standingFor(user.accountId, result.id);
        const { decided, refused } = request.query;
        return reply.viewAsync('screening', {
          title: `Screening of ${result.entity}`,
          nav: 'screenings',
          user,
          result: screeningView(result, standing),
          answered: request.query.answered,
          decided:
            decided === 'false_positive' || decided === 'true_match' ? decisionName(decided) : undefined,
          refused: refused === 'note',
          noteMaxChars: DECISION_NOTE_MAX_CHARS,
        });
      } catch (error) {
        if (!(error instanceof ServiceError && error.code === 'not-found')) throw error;
        return reply.code(404).viewAsync('screening-missing', {
          title: 'Screening not found',
          nav: 'screenings',
          user,
          id: request.params.id,
        });
      }
    },
  );
}
