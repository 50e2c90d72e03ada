import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isBackground } from '../../src/background-work.js';
import { MonitorService, type MonitorServiceDeps } from '../../src/screening/monitoring/monitor-service.js';
import { backends } from '../support/backends.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

/** Notes, for every statement the monitors' service sends, its kind and table and whether it ran as background work. */
function statementRecorder(seen: Array<{ statement: string; background: boolean }>): KyselyPlugin {
  const tableOf = (node: RootOperationNode): string => {
    const into = 'into' in node ? node.into : undefined;
    const table = into && 'table' in into ? into.table : undefined;
    return table && 'identifier' in table ? String(table.identifier.name) : '';
  };
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
  beforeAll(async () => {
    api = await TestApp.start(backend, {
      env: { LISTS_DIR: FIXTURE_LISTS_DIR, LISTS_ENABLED: 'un_sc' },
      adjust: (ctx) => {
        const deps = (ctx.monitors as unknown as { deps: MonitorServiceDeps }).deps;
        const monitors = new MonitorService({ ...deps, db: deps.db.withPlugin(statementRecorder(seen)) });
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
});
