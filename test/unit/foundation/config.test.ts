import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTINGS } from '../../../src/config.js';

describe('configuration', () => {
  it('starts on the embedded defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: undefined,
      redisUrl: undefined,
      adminToken: undefined,
      logLevel: 'info',
      trustProxy: false,
    });
    expect(config.dataDir.endsWith('data')).toBe(true);
  });

  it('listens on loopback unless an address is given, so a developer machine exposes nothing', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'http://localhost:6379'],
    ['ADMIN_TOKEN', 'short'],
    ['SECRET_KEY', 'deadbeef'],
    ['LOG_LEVEL', 'verbose'],
    ['TRUST_PROXY', 'everyone'],
    ['DATABASE_POOL_SIZE', '0'],
  ])('refuses %s=%s with a message naming the variable', (variable, value) => {
    const attempt = () => loadConfig({ [variable]: value });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`\\b${variable}\\b`));
  });

  it('accepts a 32-byte secret key written in hex or base64', () => {
    expect(loadConfig({ SECRET_KEY: 'ab'.repeat(32) }).secretKey).toHaveLength(32);
    expect(loadConfig({ SECRET_KEY: Buffer.alloc(32, 7).toString('base64') }).secretKey).toHaveLength(32);
  });

  it('reads TRUST_PROXY as a flag, a hop count or a list of addresses', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
    ]);
  });

  it("reads LISTS_MAX_AGE_DAYS as one age for every list, some lists' own, or both", () => {
    expect(loadConfig({}).listsMaxAgeDays).toMatchObject({ ofac_sdn: 14, un_sc: 7, eu_fsf: 7 });
    expect(loadConfig({ LISTS_MAX_AGE_DAYS: '10' }).listsMaxAgeDays).toMatchObject({
      ofac_sdn: 10,
      un_sc: 10,
    });
    expect(loadConfig({ LISTS_MAX_AGE_DAYS: 'un_sc=30' }).listsMaxAgeDays).toMatchObject({
      ofac_sdn: 14,
      un_sc: 30,
    });
    expect(loadConfig({ LISTS_MAX_AGE_DAYS: 'UN_SC=30, 0' }).listsMaxAgeDays).toMatchObject({
      ofac_sdn: 0,
      un_sc: 30,
    });
    expect(() => loadConfig({ LISTS_MAX_AGE_DAYS: 'un=30' })).toThrow(
      /LISTS_MAX_AGE_DAYS names an unknown list un;/,
    );
    expect(() => loadConfig({ LISTS_MAX_AGE_DAYS: 'un_sc=soon' })).toThrow(
      /LISTS_MAX_AGE_DAYS must be a whole number/,
    );
  });

  it('takes audit checkpoints only with both a key and a destination', () => {
    const key = 'cd'.repeat(32);
    const config = loadConfig({ AUDIT_CHECKPOINT_KEY: key, AUDIT_CHECKPOINT_FILE: 'cp.jsonl' });
    expect(config.auditCheckpointKey).toHaveLength(32);
    expect(config.auditCheckpointFile?.endsWith('cp.jsonl')).toBe(true);
    expect(config.auditCheckpointIntervalSeconds).toBe(60);
    expect(() => loadConfig({ AUDIT_CHECKPOINT_KEY: key })).toThrow(/AUDIT_CHECKPOINT_KEY needs/);
    expect(() => loadConfig({ AUDIT_CHECKPOINT_FILE: 'cp.jsonl' })).toThrow(/AUDIT_CHECKPOINT_FILE needs/);
    expect(() =>
      loadConfig({ AUDIT_CHECKPOINT_KEY: key, AUDIT_CHECKPOINT_LOG: 'true', LOG_LEVEL: 'warn' }),
    ).toThrow(/AUDIT_CHECKPOINT_LOG needs LOG_LEVEL/);
    expect(() => loadConfig({ AUDIT_CHECKPOINT_KEY: 'short' })).toThrow(
      /AUDIT_CHECKPOINT_KEY must be 32 bytes/,
    );
  });

  it('documents every setting in the configuration table of docs/configuration.md', () => {
    const readme = fs.readFileSync('docs/configuration.md', 'utf8');
    for (const setting of SETTINGS)
      expect(readme).toMatch(new RegExp(`\\|\\s*\`${setting.variable}\`\\s*\\|`));
  });
});
