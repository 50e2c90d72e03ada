import path from 'node:path';
import {
  LIST_REGISTRY,
  type ListRegistryEntry,
  type ListUrlKey,
  OFFICIAL_LIST_IDS,
} from './sources/lists/list-registry.js';
import { OPENSANCTIONS_SOURCE } from './sources/opensanctions-datasets.js';

/**
 * Every setting of the service is an environment variable with a default, validated once at start.
 * A bad value stops the process with a message naming the variable (see `ConfigError`).
 * docs/configuration.md's table lists exactly the entries of `SETTINGS` (a test keeps them in step).
 * The lists' URL settings (`LIST_URL_*`) are fields of their own, named by the list registry.
 */
export interface Config extends Record<ListUrlKey, string | undefined> {
  port: number;
  host: string;
  /** A port serving `GET /metrics` without authentication; undefined: the main port only, with the operator token. */
  metricsPort: number | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  redisUrl: string | undefined;
  adminToken: string | undefined;
  secretKey: Buffer | undefined;
  logLevel: LogLevel;
  trustProxy: boolean | number | string[];
  screeningRetentionMonths: number;
  /** Server processes; undefined: `defaultWorkerCount` (one per two cores with PostgreSQL and Redis, else one). */
  workers: number | undefined;
  /** Ids of the official lists to load and refresh (see `src/sources/lists/list-registry.ts`). */
  listsEnabled: string[];
  listsDir: string | undefined;
  /** 0 turns scheduled refreshes off (operators refresh by hand). */
  listsRefreshIntervalMinutes: number;
  /** Per list id: days after its publication date past which it is stale; 0: never by its age. */
  listsMaxAgeDays: Record<string, number>;
  listsDownloadTimeoutSeconds: number;
  listsMaxDownloadMb: number;
  /** How OpenSanctions is used: not at all, as a bulk list loaded here, or through its API. */
  opensanctionsMode: OpenSanctionsMode;
  /** Lets webhooks reach loopback and private addresses (tests, on-premise receivers); never metadata. */
  webhookAllowPrivateNetworks: boolean;
  /** Lets webhooks use plain http:// (tests, on-premise receivers). */
  webhookAllowHttp: boolean;
  /** Remote providers (src/sources/providers): one answer's time budget, retry included. */
  providerTimeoutMs: number;
  /** Requests in flight to one provider from this process; more wait their turn. */
  providerConcurrency: number;
  gdeltEnabled: boolean;
  gdeltUrl: string;
  gdeltTimespanMonths: number;
  opensanctionsApiUrl: string;
  opensanctionsApiKey: string | undefined;
  opensanctionsDataset: string;
  companiesHouseUrl: string;
  /** Without a key the Companies House source is disabled. */
  companiesHouseApiKey: string | undefined;
  gleifEnabled: boolean;
  gleifUrl: string;
  /** Signs audit checkpoints (HMAC-SHA256); unset: no checkpoints are written. */
  auditCheckpointKey: Buffer | undefined;
  auditCheckpointFile: string | undefined;
  auditCheckpointLog: boolean;
  auditCheckpointIntervalSeconds: number;
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

/** The official lists loaded when `LISTS_ENABLED` is unset (the registry says which). */
const LISTS_ENABLED_BY_DEFAULT = LIST_REGISTRY.filter(
  (entry) => entry.enabledByDefault && OFFICIAL_LIST_IDS.includes(entry.id),
).map((entry) => entry.id);
const LISTS_OFF_BY_DEFAULT = OFFICIAL_LIST_IDS.filter((id) => !LISTS_ENABLED_BY_DEFAULT.includes(id));

function parseListIds(raw: string | undefined, variable: string): string[] {
  if (raw === undefined || raw.trim() === '') return [...LISTS_ENABLED_BY_DEFAULT];
  if (raw.trim() === 'none') return [];
  if (raw.trim() === 'all') return [...OFFICIAL_LIST_IDS];
  const ids = [...new Set(raw.split(',').map((part) => part.trim().toLowerCase()))].filter(Boolean);
  const unknown = ids.filter((id) => !OFFICIAL_LIST_IDS.includes(id));
  if (unknown.length > 0) {
    throw new ConfigError(
      variable,
      `names unknown lists ${unknown.join(', ')}; known: ${OFFICIAL_LIST_IDS.join(', ')}`,
    );
  }
  return ids;
}

const MAX_AGE_DAYS_LIMIT = 3_650;

/**
 * `LISTS_MAX_AGE_DAYS`: a number of days for every list, `id=days` pairs for some, or both
 * (`14,un_sc=30`); a list not named keeps its registry default. 0 judges no list by its age.
 */
function parseMaxAges(raw: string | undefined, variable: string): Record<string, number> {
  const ages = Object.fromEntries(LIST_REGISTRY.map((entry) => [entry.id, entry.maxAgeDays]));
  const days = (text: string) => integer(0, MAX_AGE_DAYS_LIMIT, 0)(text.trim(), variable);
  const parts = (raw ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const part of parts.filter((p) => !p.includes('='))) {
    for (const id of Object.keys(ages)) ages[id] = days(part);
  }
  for (const part of parts.filter((p) => p.includes('='))) {
    const [id = '', value = ''] = part.split('=').map((side) => side.trim().toLowerCase());
    if (!(id in ages)) {
      throw new ConfigError(variable, `names an unknown list ${id}; known: ${Object.keys(ages).join(', ')}`);
    }
    ages[id] = days(value);
  }
  return ages;
}

/** A list's URL setting, as its registry entry names it. */
function listUrl({ url: { variable, key, list, official } }: ListRegistryEntry) {
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

function providerUrl(
  variable: string,
  key: 'gdeltUrl' | 'opensanctionsApiUrl' | 'companiesHouseUrl' | 'gleifUrl',
  fallback: string,
  description: string,
) {
  const parseUrl = optionalUrl(['http:', 'https:']);
  return setting({
    variable,
    key,
    defaultText: fallback,
    description,
    parse: (raw, name) => parseUrl(raw, name) ?? fallback,
  });
}

/**
 * `off`: OpenSanctions is not used (the default: its data needs a licence for commercial use);
 * `bulk`: its export is loaded and refreshed like the official lists (source `opensanctions`);
 * `api`: its hosted API (or a self-hosted yente) is queried per screening.
 */
export const OPENSANCTIONS_MODES = ['off', 'bulk', 'api'] as const;
export type OpenSanctionsMode = (typeof OPENSANCTIONS_MODES)[number];

/** The OpenSanctions mode of a configuration, for code that enables a source by it. */
export function openSanctionsMode(config: Pick<Config, 'opensanctionsMode'>): OpenSanctionsMode {
  return config.opensanctionsMode;
}

function parseOpenSanctionsMode(raw: string | undefined, variable: string): OpenSanctionsMode {
  const value = raw === undefined || raw === '' ? 'off' : raw.trim().toLowerCase();
  if (!(OPENSANCTIONS_MODES as readonly string[]).includes(value)) {
    throw new ConfigError(variable, `must be one of ${OPENSANCTIONS_MODES.join(', ')}, got "${raw}"`);
  }
  return value as OpenSanctionsMode;
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
    defaultText: '127.0.0.1',
    // Loopback by default: a developer's `npm start` must not expose the dashboard to the network.
    description:
      'Address to listen on; `0.0.0.0` (or `::`) to accept connections from other machines, as a container or a server behind a load balancer needs.',
    parse: (raw) => (raw === undefined || raw === '' ? '127.0.0.1' : raw),
  }),
  setting({
    variable: 'METRICS_PORT',
    key: 'metricsPort',
    defaultText: '(unset: `GET /metrics` on PORT with the operator token only)',
    description:
      'A second TCP port, on HOST, serving `GET /metrics` (Prometheus) without authentication; the main port keeps serving it with the operator token.',
    parse: (raw, variable) =>
      raw === undefined || raw === '' ? undefined : integer(1, 65535, 0)(raw, variable),
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
    description:
      'Connections per process to PostgreSQL, plus 2 of its webhook delivery thread (the embedded database always uses one).',
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
      'Server processes sharing the port: `auto` (one per two cores with DATABASE_URL and REDIS_URL, as each process also runs a matching thread; else 1) or a number; more than 1 needs both.',
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
    defaultText:
      LISTS_OFF_BY_DEFAULT.length > 0 ? `every list except ${LISTS_OFF_BY_DEFAULT.join(', ')}` : 'every list',
    description: `Comma-separated official lists to load and refresh, \`all\` or \`none\`; known: ${OFFICIAL_LIST_IDS.join(', ')}.`,
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
    variable: 'LISTS_MAX_AGE_DAYS',
    key: 'listsMaxAgeDays',
    defaultText: LIST_REGISTRY.map((entry) => `${entry.id}=${entry.maxAgeDays}`).join(','),
    description:
      "Days after a list's publication date (`list_date`) past which it is reported `stale` (health `degraded`, " +
      'screenings name it in `sources_stale`): one number for every list, `id=days` for some, or both (`14,un_sc=30`); ' +
      '0 judges none by its age.',
    parse: parseMaxAges,
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
  ...LIST_REGISTRY.filter((entry) => OFFICIAL_LIST_IDS.includes(entry.id)).map(listUrl),
  setting({
    variable: 'OPENSANCTIONS_MODE',
    key: 'opensanctionsMode',
    defaultText: 'off',
    description:
      '`off`, `bulk` (load the OpenSanctions export like an official list, whatever LISTS_ENABLED says) ' +
      'or `api` (query the OpenSanctions API). Off by default: commercial use of the data needs a licence.',
    parse: parseOpenSanctionsMode,
  }),
  ...LIST_REGISTRY.filter((entry) => entry.id === OPENSANCTIONS_SOURCE).map(listUrl),
  setting({
    variable: 'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
    key: 'webhookAllowPrivateNetworks',
    defaultText: 'false',
    description:
      'Let webhook URLs resolve to loopback, private, CGNAT and unique-local addresses (never link-local ' +
      'or cloud metadata ones). For tests and on-premise receivers only; a warning is logged at start when on.',
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
  setting({
    variable: 'PROVIDER_TIMEOUT_MS',
    key: 'providerTimeoutMs',
    defaultText: '3000',
    description:
      'Time a remote provider (OpenSanctions API, GDELT, Companies House, GLEIF) has to answer, its one retry included.',
    parse: integer(100, 60_000, 3_000),
  }),
  setting({
    variable: 'PROVIDER_CONCURRENCY',
    key: 'providerConcurrency',
    defaultText: '8',
    description: 'Requests in flight to one provider from one process; further requests wait their turn.',
    parse: integer(1, 256, 8),
  }),
  setting({
    variable: 'GDELT_ENABLED',
    key: 'gdeltEnabled',
    defaultText: 'true',
    description: 'Adverse-media search in the GDELT DOC 2.0 API (Professional and Enterprise plans).',
    parse: flag(true),
  }),
  providerUrl(
    'GDELT_URL',
    'gdeltUrl',
    'https://api.gdeltproject.org/api/v2/doc/doc',
    'GDELT DOC 2.0 API endpoint.',
  ),
  setting({
    variable: 'GDELT_TIMESPAN_MONTHS',
    key: 'gdeltTimespanMonths',
    defaultText: '24',
    description: 'How far back adverse-media articles are searched.',
    parse: integer(1, 120, 24),
  }),
  providerUrl(
    'OPENSANCTIONS_API_URL',
    'opensanctionsApiUrl',
    'https://api.opensanctions.org',
    'Base address of the OpenSanctions API or a self-hosted yente (`OPENSANCTIONS_MODE=api`).',
  ),
  setting({
    variable: 'OPENSANCTIONS_API_KEY',
    key: 'opensanctionsApiKey',
    defaultText: '(unset)',
    description:
      'Sent as `Authorization: ApiKey <key>`; the hosted API needs one, a self-hosted yente may not.',
    parse: (raw) => (raw === undefined || raw === '' ? undefined : raw),
  }),
  setting({
    variable: 'OPENSANCTIONS_DATASET',
    key: 'opensanctionsDataset',
    defaultText: 'default',
    description: 'The dataset (collection) matched against in API mode, e.g. `default`, `sanctions`, `peps`.',
    parse: (raw, variable) => {
      const value = raw === undefined || raw === '' ? 'default' : raw;
      if (!/^[a-z0-9_]+$/.test(value))
        throw new ConfigError(variable, 'must be a dataset name (a-z, 0-9, _)');
      return value;
    },
  }),
  providerUrl(
    'COMPANIES_HOUSE_URL',
    'companiesHouseUrl',
    'https://api.company-information.service.gov.uk',
    'Companies House public data API.',
  ),
  setting({
    variable: 'COMPANIES_HOUSE_API_KEY',
    key: 'companiesHouseApiKey',
    defaultText: '(unset: source disabled)',
    description: 'Companies House API key; enables the disqualified-directors source `uk_companies_house`.',
    parse: (raw) => (raw === undefined || raw === '' ? undefined : raw),
  }),
  setting({
    variable: 'GLEIF_ENABLED',
    key: 'gleifEnabled',
    defaultText: 'true',
    description: 'Ownership look-ups in the GLEIF LEI registry: listed parents of a screened company.',
    parse: flag(true),
  }),
  providerUrl('GLEIF_URL', 'gleifUrl', 'https://api.gleif.org/api/v1', 'GLEIF API base address.'),
  setting({
    variable: 'AUDIT_CHECKPOINT_KEY',
    key: 'auditCheckpointKey',
    defaultText: '(unset: no checkpoints)',
    description:
      '32-byte key (64 hex characters or base64) signing audit checkpoints; keep it outside the database. ' +
      'Needs AUDIT_CHECKPOINT_FILE or AUDIT_CHECKPOINT_LOG.',
    parse: parseSecretKey,
  }),
  setting({
    variable: 'AUDIT_CHECKPOINT_FILE',
    key: 'auditCheckpointFile',
    defaultText: '(unset)',
    description: 'File the signed checkpoints of every audit chain head are appended to (JSON lines).',
    parse: (raw) => (raw === undefined || raw === '' ? undefined : path.resolve(raw)),
  }),
  setting({
    variable: 'AUDIT_CHECKPOINT_LOG',
    key: 'auditCheckpointLog',
    defaultText: 'false',
    description: 'Also write each signed checkpoint as one log line (needs LOG_LEVEL info or lower).',
    parse: flag(false),
  }),
  setting({
    variable: 'AUDIT_CHECKPOINT_INTERVAL_SECONDS',
    key: 'auditCheckpointIntervalSeconds',
    defaultText: '60',
    description: 'How often the heads that moved are checkpointed (and once more at shutdown).',
    parse: integer(1, 86_400, 60),
  }),
] as const;

/** Reads and validates every setting; throws `ConfigError` naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const s of SETTINGS) {
    config[s.key] = s.parse(env[s.variable], s.variable);
  }
  checkAuditCheckpoints(config as Config);
  return config as Config;
}

/** Checkpoints need a key and somewhere to go; one without the other is a mistake, not a choice. */
function checkAuditCheckpoints(config: Config): void {
  const destination = config.auditCheckpointFile !== undefined || config.auditCheckpointLog;
  if (config.auditCheckpointKey && !destination) {
    throw new ConfigError(
      'AUDIT_CHECKPOINT_KEY',
      'needs AUDIT_CHECKPOINT_FILE or AUDIT_CHECKPOINT_LOG=true: where the checkpoints go',
    );
  }
  if (!config.auditCheckpointKey && destination) {
    const variable =
      config.auditCheckpointFile !== undefined ? 'AUDIT_CHECKPOINT_FILE' : 'AUDIT_CHECKPOINT_LOG';
    throw new ConfigError(variable, 'needs AUDIT_CHECKPOINT_KEY to sign the checkpoints');
  }
  if (config.auditCheckpointLog && !['info', 'debug', 'trace'].includes(config.logLevel)) {
    throw new ConfigError('AUDIT_CHECKPOINT_LOG', `needs LOG_LEVEL info or lower, got ${config.logLevel}`);
  }
}
