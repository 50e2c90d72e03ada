import { inject } from 'vitest';

export interface Backend {
  name: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
}

/** Every integration suite runs on the embedded default, and on PostgreSQL + Redis when configured. */
export function backends(): Backend[] {
  const list: Backend[] = [
    { name: 'embedded PGlite, in-memory cache', databaseUrl: undefined, redisUrl: undefined },
  ];
  const postgresUrl = inject('postgresUrl');
  if (postgresUrl)
    list.push({ name: 'PostgreSQL + Redis', databaseUrl: postgresUrl, redisUrl: inject('redisUrl') });
  return list;
}

export function sharedBackends(): Backend[] {
  return backends().filter((b) => b.databaseUrl !== undefined);
}
