import { type RawBuilder, sql } from 'kysely';

/** Statements to run inside another one, by name: each becomes a CTE that later ones may read. */
export type NamedStatements = Readonly<Record<string, RawBuilder<unknown>>>;

/**
 * `, name AS (statement)` for each statement, to follow a statement's own first CTE: how a
 * statement carries what must be written exactly when it writes (see `countScreening`).
 */
export function followingCtes(statements: NamedStatements): RawBuilder<unknown> {
  return sql.join(
    Object.entries(statements).map(([name, statement]) => sql`, ${sql.id(name)} AS (${statement})`),
    sql``,
  );
}
