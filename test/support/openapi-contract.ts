import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
}

function pointerEscape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Checks HTTP responses against the OpenAPI document the service publishes: the status must be
 * declared for the operation, and the body must match the schema declared for that status and
 * media type. Paths the document does not describe (unknown routes) must be problem documents.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly templates: { template: string; pattern: RegExp }[];

  constructor(private readonly doc: OpenApiDocument) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema(doc as object, 'openapi.json');
    this.templates = Object.keys(doc.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  check(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
    const path = url.split('?')[0] ?? url;
    // A static path wins over a template that would also match it (/v1/screen/batch, /v1/screen/{id}).
    const template =
      this.templates.find((t) => t.template === path)?.template ??
      this.templates.find((t) => t.pattern.test(path))?.template;
    const operation = template ? this.doc.paths[template]?.[method.toLowerCase()] : undefined;
    if (!operation) {
      this.validate('#/components/schemas/Problem', body, `${method} ${path} ${status}`);
      expect(contentType).toMatch(/^application\/problem\+json/);
      return;
    }
    const response = operation.responses[String(status)];
    expect(response, `${method} ${template} does not declare status ${status}`).toBeDefined();
    if (!response?.content) {
      expect(body, `${method} ${template} ${status} declares no body`).toBeUndefined();
      return;
    }
    const mediaType = (contentType ?? '').split(';')[0]!.trim();
    expect(Object.keys(response.content), `${method} ${template} ${status} media type`).toContain(mediaType);
    const pointer = [
      'paths',
      template!,
      method.toLowerCase(),
      'responses',
      String(status),
      'content',
      mediaType,
      'schema',
    ]
      .map(pointerEscape)
      .join('/');
    this.validate(`#/${pointer}`, body, `${method} ${template} ${status}`);
  }

  private validate(pointer: string, body: unknown, what: string): void {
    const validate = this.ajv.getSchema(`openapi.json${pointer}`);
    expect(validate, `no schema at ${pointer}`).toBeDefined();
    const valid = validate!(body);
    expect(valid, `${what}: ${JSON.stringify(validate!.errors)} in ${JSON.stringify(body)}`).toBe(true);
  }
}
