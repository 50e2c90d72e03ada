import pg from 'pg';

/** A schema of its own on the benchmark's PostgreSQL, dropped afterwards: runs never meet. */
export async function freshSchemaUrl(base: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `bench_${Date.now().toString(36)}`;
  const run = async (text: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await run(`CREATE SCHEMA ${schema}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => run(`DROP SCHEMA ${schema} CASCADE`) };
}
