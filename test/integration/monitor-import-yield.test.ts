import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  RootOperationNode,
} from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBackground } from '../../src/background-work.js';
import { MonitorService, type MonitorServiceDeps } from '../../src/screening/monitoring/monitor-service.js';
import { MONITOR_IMPORT_CHUNK } from '../../src/screening/monitoring/monitoring-policy.js';
import { backends } from '../support/backends.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

/** Counts the statements inserting an import's monitors, and tells when the next one is sent. */
class MonitorInserts implements KyselyPlugin {
  sent = 0;
  private nextSent: () => void = () => {};
  readonly next = () => new Promise<void>((resolve) => (this.nextSent = resolve));

  transformQuery({ node }: PluginTransformQueryArgs) {
    if (node.kind === 'InsertQueryNode' && tableOf(node) === 'monitors') {
      this.sent++;
      this.nextSent();
    }
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs) {
    return result;
  }
}

function tableOf(node: RootOperationNode): string {
  const into = 'into' in node ? node.into : undefined;
  const table = into && 'table' in into ? into.table : undefined;
  return table && 'identifier' in table ? String(table.identifier.name) : '';
}

/** Notes, for every statement the monitors' service sends, its kind and table and whether it ran as background work. */
function statementRecorder(seen: Array<{ statement: string; background: boolean }>): KyselyPlugin {
  return {
    transformQuery({ node }) {
      seen.push({ statement: `${node.kind} ${tableOf(node)}`.trim(), background: isBackground() });
      return node;
    },
    async transformResult({ result }) {
      return result;
    },
  };
}

// A large import's store holds the embedded database's one session for seconds (issue 45): it runs
// as background work, so the database serves every request waiting before it begins.
describe.each(backends())("an import's store is background work ($name)", (backend) => {
  let api: TestApp;
  const seen: Array<{ statement: string; background: boolean }> = [];
  const inserts = new MonitorInserts();
  beforeAll(async () => {
    api = await TestApp.start(backend, {
      env: { LISTS_DIR: FIXTURE_LISTS_DIR, LISTS_ENABLED: 'un_sc' },
      adjust: (ctx) => {
        const deps = (ctx.monitors as unknown as { deps: MonitorServiceDeps }).deps;
        const monitors = new MonitorService({
          ...deps,
          db: deps.db.withPlugin(statementRecorder(seen)).withPlugin(inserts),
        });
        return { ...ctx, monitors };
      },
    });
  }, 60_000);
  afterAll(async () => api?.close());

  it('checks the import as the request, and stores it as background work', async () => {
    const { key } = await api.createAccount('professional');
    const items = Array.from({ length: 30 }, (_, i) => ({ query: `Imported Person ${i}`, type: 'person' }));
    const imported = await api.request('POST', '/v1/monitors/import', { key, body: { items } });
    expect(imported.status).toBe(202);
    const inserts = seen.filter((s) => s.statement.startsWith('InsertQueryNode'));
    expect(inserts.map((s) => s.statement)).toEqual(
      expect.arrayContaining(['InsertQueryNode monitor_imports', 'InsertQueryNode monitors']),
    );
    expect(inserts.every((s) => s.background)).toBe(true);
    // Refused before the body is read: what admits the import runs as the request.
    expect(seen[0]).toMatchObject({ background: false });
    expect(
      (await api.request('GET', `/v1/monitors/imports/${imported.body.id}`, { key })).body,
    ).toMatchObject({
      total: 30,
    });
  });

  // On the embedded database the import once held the one session for all its rows (a 100,000-row
  // import: 25-35 s). Stored a chunk per transaction, it lets a request in between two chunks.
  it("answers another account's screening, and shows none of the import, while its chunks are stored", async () => {
    const importer = await api.createAccount('enterprise');
    const screener = await api.createAccount('professional');
    const screen = (query: string) =>
      api.request('POST', '/v1/screen', { key: screener.key, body: { query, type: 'person' } });
    expect((await screen('Warm Up Person')).status).toBe(200);
    const chunks = 20;
    const items = Array.from({ length: chunks * MONITOR_IMPORT_CHUNK }, (_, i) => ({
      query: `Stored Party ${i}`,
      type: 'person',
    }));
    const storing = inserts.next();
    const sentBefore = inserts.sent;
    let importAnswered = false;
    const imported = api
      .request('POST', '/v1/monitors/import', { key: importer.key, body: { items } })
      .finally(() => (importAnswered = true));
    await storing;
    // Asked once the import's first chunk is on its way: answered while the import is not.
    const [screened, listed] = await Promise.all([
      screen('Asked Meanwhile Person').then((r) => ({ ...r, importAnswered })),
      api.request('GET', '/v1/monitors', { key: importer.key }),
    ]);
    expect(screened.status).toBe(200);
    // On PostgreSQL the pool has other connections: the screening waits for no chunk there, and
    // which of the two is answered first would be a matter of timing.
    if (backend.databaseUrl === undefined) {
      expect(screened.importAnswered).toBe(false);
      expect(listed.body.data).toEqual([]);
    }
    expect((await imported).status).toBe(202);
    expect(inserts.sent - sentBefore).toBe(chunks);
    expect((await api.request('GET', '/v1/monitors', { key: importer.key })).body.data).toHaveLength(50);
  });
});
