declare module 'fastify' {
  interface FastifyContextConfig {
    /** Form fields whose route reports a NUL itself, more precisely (the CSV import: line and column). */
    nulReportedByRoute?: readonly string[];
  }
}

/**
 * PostgreSQL's text cannot hold U+0000, so a form field or filter carrying one would fail its
 * statement (a 500). The API refuses such a value with a 422; the dashboard answers a page that
 * names the field, before any route reads it.
 */
export function fieldWithNul(values: unknown, reportedByRoute: readonly string[] = []): string | undefined {
  if (values === null || typeof values !== 'object') return undefined;
  for (const [name, value] of Object.entries(values)) {
    if (reportedByRoute.includes(name)) continue;
    const texts: unknown[] = Array.isArray(value) ? value : [value];
    if (texts.some((text) => typeof text === 'string' && text.includes('\u0000'))) return name;
  }
  return undefined;
}

/** What the visitor reads about such a field. */
export function nulMessage(field: string): string {
  return `The field “${field}” contains a NUL character (U+0000), which cannot be stored. Remove it and try again.`;
}
