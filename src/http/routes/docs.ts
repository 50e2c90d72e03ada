import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from 'typebox';
import { ERROR_CODES } from '../../errors.js';
import type { App } from '../context.js';
import { PROBLEMS, ProblemSchema, problemType } from '../problems.js';

const DESCRIPTION = `Screens a person's or an entity's name against sanctions lists, watchlists, PEP data, adverse
media and corporate registries. Authenticate with \`Authorization: Bearer cs_live_...\`. Errors are RFC 9457
problem documents; see /problems/{type} for each type.`;

/**
 * The API reference page: Swagger UI's own scripts, styles and images from this origin (it sets
 * some styles inline as it renders), the OpenAPI document fetched from here, nothing framed,
 * nothing sent anywhere else.
 */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Problem type pages are plain text in HTML: nothing to load, run or frame. */
const PROBLEM_PAGE_CONTENT_SECURITY_POLICY =
  "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** Registers the OpenAPI generator; must run before the routes so that it sees all of them. */
export async function registerOpenApi(app: App, version: string): Promise<void> {
  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Compliance Screening Service', version, description: DESCRIPTION },
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key: cs_live_ followed by 32 characters',
          },
          adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (ADMIN_TOKEN)' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export async function docsRoutes(app: App): Promise<void> {
  app.get('/v1/openapi.json', { config: { auth: 'none' }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json').send(app.swagger()),
  );
  // The docs page and its assets are served from the package itself: no CDN.
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { url: '/v1/openapi.json' },
    staticCSP: DOCS_CONTENT_SECURITY_POLICY,
  });

  app.get(
    '/problems/:code',
    {
      config: { auth: 'none' },
      schema: { hide: true, params: Type.Object({ code: Type.String() }) },
    },
    async (request, reply) => {
      const code = ERROR_CODES.find((c) => c === request.params.code);
      if (!code) return reply.callNotFound();
      const kind = PROBLEMS[code];
      const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(kind.title)}</title></head>
<body><h1>${escapeHtml(kind.title)}</h1><p>Problem type <code>${escapeHtml(problemType(code))}</code>, HTTP status ${kind.status}.</p>
<p>${escapeHtml(kind.advice)}</p></body></html>`;
      return reply
        .type('text/html; charset=utf-8')
        .header('Content-Security-Policy', PROBLEM_PAGE_CONTENT_SECURITY_POLICY)
        .send(html);
    },
  );
}
