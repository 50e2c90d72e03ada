// No value import of fastify here: this module is loaded from inside the mock factory of 'fastify'.
import type { FastifyInstance, RouteOptions } from 'fastify';

/** One method of one route, as the app registered it. */
export interface RecordedRoute {
  method: string;
  url: string;
  /** `config.auth` of the route, or what the authentication plugin assumes without it. */
  auth: 'key' | 'admin' | 'none';
  /** `config.dashboard` of a dashboard route: who may use it (undefined for static files). */
  dashboard?: 'signed-in' | 'public';
  schema: RouteOptions['schema'];
}

type FastifyModule = { default: (...args: any[]) => FastifyInstance };

/**
 * The fastify module with its factory wrapped so that every instance records each route it
 * registers (an `onRoute` hook added before any plugin or route). Test files install it with
 * `vi.mock('fastify', ...)`, so the route table comes from the app itself and a route added
 * tomorrow is fuzzed tomorrow without anyone listing it.
 */
export function recordingFastify<M extends FastifyModule>(mod: M, routes: RecordedRoute[]): M {
  const create = mod.default;
  const recording = (...args: any[]) => {
    const app = create(...args);
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        const auth = route.config?.auth ?? (route.url.startsWith('/v1/') ? 'key' : 'none');
        const entry = { method, url: route.url, auth } as RecordedRoute;
        if (route.config?.dashboard) entry.dashboard = route.config.dashboard;
        // Kept out of sight so that a failing case prints as its method and URL, not its whole schema.
        Object.defineProperty(entry, 'schema', { value: route.schema, enumerable: false });
        routes.push(entry);
      }
    });
    return app;
  };
  return { ...mod, default: recording, fastify: recording };
}

/** Property names of a route's JSON body schema (of its `application/json` content when it has several). */
export function bodyFieldNames(route: RecordedRoute): string[] {
  const body = (route.schema as { body?: any } | undefined)?.body;
  const schema = body?.content?.['application/json']?.schema ?? body;
  const properties = schema?.properties ?? schema?.anyOf?.[0]?.properties;
  return properties ? Object.keys(properties) : [];
}

/** Parameter names of a route's query string schema. */
export function queryFieldNames(route: RecordedRoute): string[] {
  const query = (route.schema as { querystring?: any } | undefined)?.querystring;
  return query?.properties ? Object.keys(query.properties) : [];
}
