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
  screeningRetentionMonths: number;
  /** Server processes; undefined: all cores with DATABASE_URL, one on the embedded database. */
  workers: number | undefined;
  /** Ids of the official lists to load and refresh (see `src/sources/lists/list-catalog.ts`). */
  listsEnabled: string[];
  listsDir: string | undefined;
  /** 0 turns scheduled refreshes off (operators refresh by hand). */
  listsRefreshIntervalMinutes: number;
  listsDownloadTimeoutSeconds: number;
  listsMaxDownloadMb: number;
  listUrlOfacSdn: string | undefined;
  listUrlOfacCons: string | undefined;
  listUrlUnSc: string | undefined;
  listUrlEuFsf: string | undefined;
  listUrlUkFcdo: string | undefined;
  listUrlUkOfsi: string | undefined;
  listUrlUsCsl: string | undefined;
  /** Lets webhooks reach loopback, private and link-local addresses (tests, on-premise receivers). */
  webhookAllowPrivateNetworks: boolean;
  /** Lets webhooks use plain http:// (tests, on-premise receivers). */
  webhookAllowHttp: boolean;
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

function flag(fallback: boolean) {
  return (raw: string | undefined, variable: string): boolean => {
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw new ConfigError(variable, `must be true or false, got "${raw}"`);
  };
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

/** The official lists the service knows; `src/sources/lists/list-catalog.ts` describes each. */
export const KNOWN_LIST_IDS = [
  'ofac_sdn',
  'ofac_cons',
  'un_sc',
  'eu_fsf',
  'uk_fcdo',
  'uk_ofsi',
  'us_csl',
] as const;
/** OFSI's list is being retired in favour of the FCDO list, which carries the same designations. */
const LISTS_OFF_BY_DEFAULT = ['uk_ofsi'];

function parseListIds(raw: string | undefined, variable: string): string[] {
  if (raw === undefined || raw.trim() === '')
    return KNOWN_LIST_IDS.filter((id) => !LISTS_OFF_BY_DEFAULT.includes(id));
  if (raw.trim() === 'none') return [];
  if (raw.trim() === 'all') return [...KNOWN_LIST_IDS];
  const ids = [...new Set(raw.split(',').map((part) => part.trim().toLowerCase()))].filter(Boolean);
  const unknown = ids.filter((id) => !(KNOWN_LIST_IDS as readonly string[]).includes(id));
  if (unknown.length > 0) {
    throw new ConfigError(
      variable,
      `names unknown lists ${unknown.join(', ')}; known: ${KNOWN_LIST_IDS.join(', ')}`,
    );
  }
  return ids;
}

function listUrl(variable: string, key: ListUrlKey, list: string, official: string) {
  return setting({
    variable,
    key,
    defaultText: '(unset: the official address, or LISTS_DIR)',
    description:
      `Where to download the ${list} list from instead of ${official}: http(s):// or file://. ` +
      'For a list of several files this is the main file; the others are read beside it.',
    parse: optionalUrl(['http:', 'https:', 'file:']),
  });
}

export type ListUrlKey =
  | 'listUrlOfacSdn'
  | 'listUrlOfacCons'
  | 'listUrlUnSc'
  | 'listUrlEuFsf'
  | 'listUrlUkFcdo'
  | 'listUrlUkOfsi'
  | 'listUrlUsCsl';

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
  setting({
    variable: 'WORKERS',
    key: 'workers',
    defaultText: 'auto',
    description:
      'Server processes sharing the port: `auto` (all cores with DATABASE_URL and REDIS_URL, else 1) or a number; more than 1 needs both.',
    parse: (raw, variable) =>
      raw === undefined || raw === '' || raw === 'auto' ? undefined : integer(1, 64, 1)(raw, variable),
  }),
  setting({
    variable: 'SCREENING_RETENTION_MONTHS',
    key: 'screeningRetentionMonths',
    defaultText: '24',
    description: 'How long screenings are kept (and readable by id); older ones are purged daily.',
    parse: integer(1, 1200, 24),
  }),
  setting({
    variable: 'LISTS_ENABLED',
    key: 'listsEnabled',
    defaultText: 'every list except uk_ofsi',
    description: `Comma-separated official lists to load and refresh, \`all\` or \`none\`; known: ${KNOWN_LIST_IDS.join(', ')}.`,
    parse: parseListIds,
  }),
  setting({
    variable: 'LISTS_DIR',
    key: 'listsDir',
    defaultText: '(unset: download from the official addresses)',
    description:
      'Folder holding the list files under their official names (a mirror made by `screening lists fetch`, ' +
      'files may be gzip-compressed with `.gz` added), read instead of downloading: air-gapped deployments.',
    parse: (raw) => (raw === undefined || raw === '' ? undefined : path.resolve(raw)),
  }),
  setting({
    variable: 'LISTS_REFRESH_INTERVAL_MINUTES',
    key: 'listsRefreshIntervalMinutes',
    defaultText: '60',
    description: 'How often the lists are checked for a new version; 0 turns scheduled refreshes off.',
    parse: integer(0, 10_080, 60),
  }),
  setting({
    variable: 'LISTS_DOWNLOAD_TIMEOUT_SECONDS',
    key: 'listsDownloadTimeoutSeconds',
    defaultText: '60',
    description: 'Upper bound of one list file download, body included.',
    parse: integer(1, 3_600, 60),
  }),
  setting({
    variable: 'LISTS_MAX_DOWNLOAD_MB',
    key: 'listsMaxDownloadMb',
    defaultText: '200',
    description: 'Largest list file accepted (the biggest official file is about 25 MB); a bigger one fails.',
    parse: integer(1, 2_048, 200),
  }),
  listUrl('LIST_URL_OFAC_SDN', 'listUrlOfacSdn', 'OFAC SDN', "OFAC's SDN.CSV"),
  listUrl(
    'LIST_URL_OFAC_CONS',
    'listUrlOfacCons',
    'OFAC non-SDN',
    "OFAC's CONS_PRIM.CSV (CONS_ENHANCED.ZIP works too)",
  ),
  listUrl('LIST_URL_UN_SC', 'listUrlUnSc', 'UN Security Council', 'scsanctions.un.org'),
  listUrl('LIST_URL_EU_FSF', 'listUrlEuFsf', 'EU financial sanctions', 'the EU FSF XML'),
  listUrl('LIST_URL_UK_FCDO', 'listUrlUkFcdo', 'UK Sanctions List', 'sanctionslist.fcdo.gov.uk'),
  listUrl('LIST_URL_UK_OFSI', 'listUrlUkOfsi', 'OFSI consolidated', "OFSI's ConList.csv"),
  listUrl('LIST_URL_US_CSL', 'listUrlUsCsl', 'US Consolidated Screening List', 'data.trade.gov'),
  setting({
    variable: 'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
    key: 'webhookAllowPrivateNetworks',
    defaultText: 'false',
    description:
      'Let webhook URLs resolve to loopback, private, link-local, CGNAT and unique-local addresses. ' +
      'For tests and on-premise receivers only; a warning is logged at start when on.',
    parse: flag(false),
  }),
  setting({
    variable: 'WEBHOOK_ALLOW_HTTP',
    key: 'webhookAllowHttp',
    defaultText: 'false',
    description:
      'Accept plain `http://` webhook URLs. For tests and on-premise receivers only; a warning is logged at start when on.',
    parse: flag(false),
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
