import type pg from 'pg';

/**
 * The most statements one session keeps prepared. The service sends a few dozen statement shapes
 * (group commits and batch inserts vary in their number of rows, so a shape per size); the bound
 * keeps a session's memory fixed whatever a caller sends. Texts beyond it run unprepared.
 */
export const MAX_PREPARED_STATEMENTS = 256;

/**
 * A `pg.Client` that runs each parameterised statement as a named prepared statement of its
 * session: the server parses and analyses the text once per session instead of at every
 * execution. Kysely sends each statement shape with the same text, and for the statement every
 * live screening runs (the quota increment and the screening's row) that analysis was a large
 * part of its cost. node-postgres keeps track
 * of which names its connection has prepared, and prepares a name again after its connection is
 * replaced. Statements without parameters (migrations, `BEGIN`) run as they are.
 *
 * A pooler in between must therefore run in session mode, as it already must for the service's
 * session settings and advisory locks (docs/deployment.md).
 */
export function preparingClient(Base: typeof pg.Client): typeof pg.Client {
  return class PreparingClient extends Base {
    private readonly statementNames = new Map<string, string>();

    // pg's `query` has many overloads; Kysely calls `query(text, values)`, the one this names.
    override query(...args: unknown[]): never {
      const [text, values] = args;
      if (typeof text === 'string' && Array.isArray(values) && values.length > 0) {
        const name = this.nameOf(text);
        if (name) return super.query({ name, text, values } as never) as never;
      }
      return (super.query as (...a: unknown[]) => never)(...args);
    }

    private nameOf(text: string): string | undefined {
      const known = this.statementNames.get(text);
      if (known || this.statementNames.size >= MAX_PREPARED_STATEMENTS) return known;
      const name = `s${this.statementNames.size}`;
      this.statementNames.set(text, name);
      return name;
    }
  } as unknown as typeof pg.Client;
}
