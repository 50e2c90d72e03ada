import path from 'node:path';

/**
 * Every setting of the service is an environment variable with a default, validated once at start.
 * A bad value stops the process with a message naming the variable (see `ConfigError`).
 * The README's configuration table lists exactly the entries of `SETTINGS` (a test keeps them in step).
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  secretKey: Buffer | undefined;
  logLevel: LogLevel;
  trustProxy: boolean | number | string[];
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

interface Setting<K extends keyof Config> {
  variable: string;
  key: K;
  defaultText: string;
  description: string;
  parse: (raw: string | undefined, variable: string) => Config[K];
}

function setting<K extends keyof Config>(s: Setting<K>): Setting<K> {
  return s;
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(min: number, max: number, fallback: number) {
  return (raw: string | undefined, variable: string): number => {
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw)) throw new ConfigError(variable, `must be a whole number, got "${raw}"`);
    const value = Number(raw);
    if (value < min || value > max)
      throw new ConfigError(variable, `must be between ${min} and ${max}, got ${value}`);
    return value;
  };
}

function optionalUrl(protocols: string[]) {
  return (raw: string | undefined, variable: string): string | undefined => {
    if (raw === undefined || raw === '') return undefined;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new ConfigError(variable, 'must be a URL');
    }
    if (!protocols.includes(url.protocol)) {
      throw new ConfigError(variable, `must use one of ${protocols.join(', ')}, got ${url.protocol}`);
    }
    return raw;
  };
}

function parseSecretKey(raw: string | undefined, variable: string): Buffer | undefined {
  if (raw === undefined || raw === '') return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    throw new ConfigError(variable, 'must be 32 bytes, written as 64 hex characters or as base64');
  }
  return key;
}

function parseAdminToken(raw: string | undefined, variable: string): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 24) throw new ConfigError(variable, 'must be at least 24 characters long');
  return raw;
}

function parseTrustProxy(raw: string | undefined, variable: string): boolean | number | string[] {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const addresses = raw.split(',').map((part) => part.trim());
  if (addresses.some((a) => !/^[0-9a-fA-F.:/]+$/.test(a))) {
    throw new ConfigError(variable, 'must be true, false, a hop count, or comma-separated addresses/CIDRs');
  }
  return addresses;
}

export const SETTINGS = [
  setting({
    variable: 'PORT',
    key: 'port',
    defaultText: '8080',
    description: 'TCP port of the HTTP API.',
    parse: integer(0, 65535, 8080),
  }),
  setting({
    variable: 'HOST',
    key: 'host',
    defaultText: '0.0.0.0',
    description: 'Address to listen on.',
    parse: (raw) => (raw === undefined || raw === '' ? '0.0.0.0' : raw),
  }),
  setting({
    variable: 'DATA_DIR',
    key: 'dataDir',
    defaultText: './data',
    description: 'Folder for the embedded database, the generated admin token and keys.',
    parse: (raw) => path.resolve(raw === undefined || raw === '' ? './data' : raw),
  }),
  setting({
    variable: 'DATABASE_URL',
    key: 'databaseUrl',
    defaultText: '(unset: embedded PGlite in DATA_DIR)',
    description: 'PostgreSQL 15+ connection string, e.g. `postgres://user@host:5432/db`.',
    parse: optionalUrl(['postgres:', 'postgresql:']),
  }),
  setting({
    variable: 'DATABASE_POOL_SIZE',
    key: 'databasePoolSize',
    defaultText: '10',
    description: 'Connections per process to PostgreSQL (the embedded database always uses one).',
    parse: integer(1, 200, 10),
  }),
  setting({
    variable: 'REDIS_URL',
    key: 'redisUrl',
    defaultText: '(unset: in-memory cache and rate limiter)',
    description: 'Redis 6+ for the shared cache, rate limiter and key-revocation broadcast.',
    parse: optionalUrl(['redis:', 'rediss:']),
  }),
  setting({
    variable: 'ADMIN_TOKEN',
    key: 'adminToken',
    defaultText: '(unset: generated into DATA_DIR/admin-token)',
    description: 'Bearer token of the operator API `/admin/v1`; at least 24 characters.',
    parse: parseAdminToken,
  }),
  setting({
    variable: 'SECRET_KEY',
    key: 'secretKey',
    defaultText: '(unset: generated into DATA_DIR when first needed)',
    description: '32-byte key (64 hex characters or base64) encrypting secrets at rest.',
    parse: parseSecretKey,
  }),
  setting({
    variable: 'LOG_LEVEL',
    key: 'logLevel',
    defaultText: 'info',
    description: `One of ${LOG_LEVELS.join(', ')}.`,
    parse: (raw, variable) => {
      const value = raw === undefined || raw === '' ? 'info' : raw;
      if (!LOG_LEVELS.includes(value as LogLevel)) {
        throw new ConfigError(variable, `must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
      }
      return value as LogLevel;
    },
  }),
  setting({
    variable: 'TRUST_PROXY',
    key: 'trustProxy',
    defaultText: 'false',
    description: 'Trust `X-Forwarded-*` from: `true`, a hop count, or comma-separated proxy addresses/CIDRs.',
    parse: parseTrustProxy,
  }),
] as const;

/** Reads and validates every setting; throws `ConfigError` naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const s of SETTINGS) {
    config[s.key] = s.parse(env[s.variable], s.variable);
  }
  return config as Config;
}
