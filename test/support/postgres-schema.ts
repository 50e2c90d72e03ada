import pg from 'pg';

export interface Schema {
  /** The base URL with `search_path` set to the schema: every table is created and read there. */
  url: string;
  drop(): Promise<void>;
}

async function run(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A PostgreSQL schema of its own, for one test run, one test or one benchmark: runs sharing a
 * server never see each other's rows, and `drop` removes everything they made.
 */
export async function createSchema(baseUrl: string, name: string): Promise<Schema> {
  const base = new URL(baseUrl);
  base.searchParams.delete('options');
  await run(base.toString(), `CREATE SCHEMA ${name}`);
  const scoped = new URL(base);
  scoped.searchParams.set('options', `-c search_path=${name}`);
  return { url: scoped.toString(), drop: () => run(base.toString(), `DROP SCHEMA ${name} CASCADE`) };
}

/** Drops every schema whose name starts with `prefix`: what a test run made, at its end. */
export async function dropSchemasStartingWith(baseUrl: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>(
      'SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)',
      [prefix],
    );
    for (const { nspname } of rows) await client.query(`DROP SCHEMA "${nspname}" CASCADE`);
  } finally {
    await client.end();
  }
}
