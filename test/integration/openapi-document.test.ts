import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { TestApp } from '../support/test-app.js';

describe('OpenAPI document', () => {
  let api: TestApp;
  let doc: any;
  beforeAll(async () => {
    api = await TestApp.start(backends()[0]!);
    doc = await (await fetch(`${api.baseUrl}/v1/openapi.json`)).json();
  });
  afterAll(async () => api?.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every API route with its statuses, problem schemas for errors and the bearer scheme', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]: [string, any]) =>
      Object.entries(methods).map(([method, op]: [string, any]) => ({ path, method, op })),
    );
    const described = operations.map((o) => `${o.method.toUpperCase()} ${o.path}`);
    for (const route of [
      'GET /v1/health',
      'POST /v1/keys',
      'GET /v1/keys',
      'DELETE /v1/keys/{id}',
      'GET /v1/usage',
      'POST /v1/screen',
      'GET /v1/screen/{id}',
      'GET /v1/audit',
      'POST /admin/v1/accounts',
      'PATCH /admin/v1/accounts/{id}',
      'DELETE /admin/v1/keys/{id}',
    ]) {
      expect(described).toContain(route);
    }
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { path, op } of operations) {
      const secured = (op.security ?? []).length > 0;
      expect(secured, path).toBe(path !== '/v1/health');
      for (const [status, response] of Object.entries(op.responses) as [string, any][]) {
        // The one exception: health answers 503 with its own report, so monitors can read what is down.
        if (Number(status) >= 400 && !(path === '/v1/health' && status === '503')) {
          expect(response.content['application/problem+json'].schema.$ref, `${path} ${status}`).toBe(
            '#/components/schemas/Problem',
          );
        }
      }
      if (secured) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '500']));
    }
  });
});
