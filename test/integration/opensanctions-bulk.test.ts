import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { listSettingsFromConfig } from '../../src/source-settings.js';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { ListServer } from '../support/list-server.js';
import { describeWithRealData, FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;

/**
 * One export made of the three real FtM samples of TEST_DATA_DIR (423 + 14 + 6 targets), as
 * OpenSanctions would publish one collection: the Wikidata PEPs and the two sanctions samples.
 */
function combinedExport(dataDir: string): Buffer {
  const files = [
    'pep/wikidata_saudi_peps.ftm.jsonl',
    'opensanctions/sanctions_sample_zala.ftm.jsonl',
    'opensanctions/sanctions_sample_t1.ftm.jsonl',
  ];
  return Buffer.from(files.map((file) => readFileSync(path.join(dataDir, file), 'utf8').trim()).join('\n'));
}

describe('OpenSanctions mode settings', () => {
  it('is off by default, and only bulk mode loads the export, whatever LISTS_ENABLED says', () => {
    const enabled = (env: Record<string, string>) => listSettingsFromConfig(loadConfig(env)).enabled;
    expect(loadConfig({}).opensanctionsMode).toBe('off');
    expect(enabled({})).not.toContain('opensanctions');
    expect(enabled({ LISTS_ENABLED: 'all' })).not.toContain('opensanctions');
    expect(enabled({ OPENSANCTIONS_MODE: 'api' })).not.toContain('opensanctions');
    expect(enabled({ OPENSANCTIONS_MODE: 'bulk', LISTS_ENABLED: 'none' })).toEqual(['opensanctions']);
    expect(() => loadConfig({ OPENSANCTIONS_MODE: 'yes' })).toThrow(
      /OPENSANCTIONS_MODE must be one of off, bulk, api/,
    );
  });
});

describe.each(backends())('OpenSanctions while bulk mode is off ($name)', (backend) => {
  it('refuses a refresh of the export with 409, naming the setting that enables it', async () => {
    const api = await TestApp.start(backend);
    try {
      const refused = await api.admin('POST', '/admin/v1/lists/opensanctions/refresh');
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toMatch(/not enabled \(see OPENSANCTIONS_MODE=bulk\)/);
      const official = await api.admin('POST', '/admin/v1/lists/eu_fsf/refresh');
      expect(official.body.detail).toMatch(/not enabled \(see LISTS_ENABLED\)/);
    } finally {
      await api.close();
    }
  });
});

describeWithRealData('OpenSanctions in bulk mode on the real samples', (dataDir) => {
  describe.each(backends())('OpenSanctions in bulk mode ($name)', (shared) => {
    let backend: Backend;
    let drop: () => Promise<void>;
    let server: ListServer;
    let api: TestApp;

    beforeAll(async () => {
      ({ backend, drop } = await isolatedBackend(shared));
      server = await ListServer.start();
      server.serve('/entities.ftm.json', { body: combinedExport(dataDir) });
      api = await TestApp.start(backend, {
        env: {
          OPENSANCTIONS_MODE: 'bulk',
          LIST_URL_OPENSANCTIONS: server.url('/entities.ftm.json'),
          // EU's own list, read from its excerpt, is what an OpenSanctions entry can confirm.
          LISTS_DIR,
          LISTS_ENABLED: 'eu_fsf',
        },
      });
      await api.runtime.ctx.lists.settled();
    }, 180_000);
    afterAll(async () => {
      await api?.close();
      await server?.close();
      await drop?.();
    });

    const screen = (key: string, body: unknown) => api.request('POST', '/v1/screen', { key, body });
    /** The OpenSanctions flag of a person screened by a fresh account. */
    const flagOf = async (name: string) => {
      const { key } = await api.createAccount();
      const response = await screen(key, { query: name, type: 'person' });
      return response.body.flags.find((f: any) => f.source === 'opensanctions');
    };

    it('downloads the export, stores it as a version and reports it like an official list', async () => {
      const { body } = await api.admin('GET', '/admin/v1/lists');
      const opensanctions = body.data.find((list: { id: string }) => list.id === 'opensanctions');
      expect(opensanctions).toMatchObject({
        state: 'fresh',
        format: 'ftm_entities',
        entity_count: 443,
        list_date: '2026-04-29',
        last_outcome: 'accepted',
      });
      expect(server.requests.filter((r) => r.path === '/entities.ftm.json')).toHaveLength(1);
      const health = await api.request('GET', '/v1/health');
      expect(health.body.sources).toMatchObject({ opensanctions: 'up', eu_fsf: 'up' });
    });

    it('finds a PEP of the Wikidata file by name, as a pep flag with the office he holds', async () => {
      const { key } = await api.createAccount();
      const response = await screen(key, { query: 'Sani Yaya', type: 'person' });
      expect(response.status).toBe(200);
      expect(response.body.sources_queried.sort()).toEqual(['eu_fsf', 'opensanctions']);
      const flag = response.body.flags.find((f: any) => f.source === 'opensanctions');
      expect(flag).toMatchObject({ type: 'pep', list: 'SA_WIKI_PEPS_V2', match_score: 1 });
      expect(flag.details).toMatchObject({
        entity_id: 'Q88219141',
        schema: 'Person',
        caption: 'Sani Yaya',
        matched_name: 'Sani Yaya',
        positions: [{ name: 'Minister of Finance', start_date: '2016-08-01' }],
      });
      expect(flag.details.match_explanation.method).toBe('exact');
      expect(response.body.sources_matched).toEqual(['opensanctions']);
      expect(response.body).toMatchObject({ risk_score: 40, risk_level: 'medium' });
    });

    it('flags a sanctioned target as watchlist, confirming the EU list this instance loads itself', async () => {
      expect(await flagOf('Vitaly Yurievich KUZMENKO')).toMatchObject({
        type: 'watchlist',
        list: 'EU_FSF',
        match_score: 1,
        details: { entity_id: 'NK-2Ka3UvopqbpZmVDFjWd4LA', confirms: ['eu_fsf'], topics: ['sanction'] },
      });
    });

    it('flags a target sanctioned only by lists not loaded here as watchlist, without confirms', async () => {
      const flag = await flagOf('Abashkin Konstantin');
      expect(flag).toMatchObject({
        type: 'watchlist',
        list: 'UA_NSDC_SANCTIONS',
        details: { entity_id: 'NK-mCEmxFfuhfdjpC8gsxH74o', topics: ['sanction'] },
      });
      expect(flag.details.confirms).toBeUndefined();
    });
  });
});
