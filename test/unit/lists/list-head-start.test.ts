import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type HeadStarted,
  type HeadStartResult,
  ListHeadStart,
} from '../../../src/sources/lists/list-head-start.js';
import { ListServer } from '../../support/list-server.js';
import { FIXTURE_ENTITY_COUNTS, FIXTURE_LISTS_DIR } from '../../support/real-lists.js';

const SETTINGS = { downloadTimeoutMs: 5_000, maxDownloadBytes: 50_000_000 };

/** A lists folder with the UN list only (the EU's file is missing). */
function onlyUnList(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'head-start-'));
  fs.copyFileSync(path.join(FIXTURE_LISTS_DIR, 'consolidated.xml'), path.join(folder, 'consolidated.xml'));
  return folder;
}

function version(result: HeadStartResult | undefined): HeadStarted {
  if (!result || 'failure' in result) throw new Error(`no version: ${JSON.stringify(result)}`);
  return result;
}

describe('ListHeadStart', () => {
  const started: ListHeadStart[] = [];
  afterEach(async () => {
    for (const headStart of started.splice(0)) await headStart.stop();
  });

  function headStart(enabled: string[], listsDir = FIXTURE_LISTS_DIR): ListHeadStart {
    const made = new ListHeadStart({ ...SETTINGS, enabled, listsDir });
    started.push(made);
    return made;
  }

  it('parses each enabled list as a refresh would, and gives each result once', async () => {
    // In the registry's order, as the first refreshes take them: OFAC's lists before the UN's.
    const early = headStart(['un_sc', 'ofac_cons']);
    const cons = version(await early.take('ofac_cons'));
    expect(cons.parsed.entityCount).toBe(FIXTURE_ENTITY_COUNTS.ofac_cons);
    const un = version(await early.take('un_sc'));
    expect(un.parsed.entityCount).toBe(FIXTURE_ENTITY_COUNTS.un_sc);
    expect(un.fetched.status).toBe('fetched');
    expect(await early.take('un_sc')).toBeUndefined();
    expect(await early.take('eu_fsf')).toBeUndefined();
  });

  it('gives the failure a refresh was waiting for, to report as its own, and goes on', async () => {
    const folder = onlyUnList();
    const early = headStart(['ofac_cons', 'eu_fsf', 'un_sc'], folder);
    const failed = await early.take('ofac_cons');
    expect(failed && 'failure' in failed && String(failed.failure)).toMatch(/cons_prim|CONS_ENHANCED/i);
    expect(version(await early.take('un_sc')).parsed.entityCount).toBe(FIXTURE_ENTITY_COUNTS.un_sc);
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('drops a failure that came before it was asked for: the refresh fetches again', async () => {
    const folder = onlyUnList();
    const early = headStart(['un_sc', 'eu_fsf'], folder);
    version(await early.take('un_sc'));
    // eu_fsf is fetched once un_sc is taken; it fails at once, before anyone asks.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await early.take('eu_fsf')).toBeUndefined();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('keeps one list ahead: the next is fetched only once the one before is taken', async () => {
    // The EU list from a server that counts requests: none until the UN list is taken.
    const server = await ListServer.start();
    try {
      server.serve('/eu.xml', {
        body: fs.readFileSync(path.join(FIXTURE_LISTS_DIR, 'xmlFullSanctionsList_1_1.xml')),
      });
      const early = new ListHeadStart({
        ...SETTINGS,
        enabled: ['un_sc', 'eu_fsf'],
        listsDir: FIXTURE_LISTS_DIR,
        urlOverrides: { eu_fsf: server.url('/eu.xml') },
      });
      started.push(early);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(server.requests).toHaveLength(0);
      version(await early.take('un_sc'));
      expect(version(await early.take('eu_fsf')).parsed.entityCount).toBe(FIXTURE_ENTITY_COUNTS.eu_fsf);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('gives nothing at once for a list asked for before its turn, and goes on after it', async () => {
    const early = headStart(['ofac_cons', 'un_sc', 'eu_fsf']);
    expect(await early.take('eu_fsf')).toBeUndefined();
    version(await early.take('ofac_cons'));
    version(await early.take('un_sc'));
  });

  it('stopped, it gives nothing more', async () => {
    const early = headStart(['un_sc', 'eu_fsf', 'uk_fcdo']);
    await early.stop();
    expect(await early.take('uk_fcdo')).toBeUndefined();
  });
});
