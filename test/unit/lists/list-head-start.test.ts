import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type HeadStarted,
  type HeadStartResult,
  ListHeadStart,
} from '../../../src/sources/lists/list-head-start.js';
import { FIXTURE_ENTITY_COUNTS, FIXTURE_LISTS_DIR } from '../../support/real-lists.js';

const SETTINGS = { downloadTimeoutMs: 5_000, maxDownloadBytes: 50_000_000 };

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
    const early = headStart(['un_sc', 'ofac_cons']);
    const un = version(await early.take('un_sc'));
    expect(un.parsed.entityCount).toBe(FIXTURE_ENTITY_COUNTS.un_sc);
    expect(un.fetched.status).toBe('fetched');
    expect(un.parseSettings).toEqual({});
    const cons = version(await early.take('ofac_cons'));
    expect(cons.parsed.entityCount).toBe(FIXTURE_ENTITY_COUNTS.ofac_cons);
    expect(await early.take('un_sc')).toBeUndefined();
    expect(await early.take('eu_fsf')).toBeUndefined();
  });

  it('gives the failure of a list it could not fetch, for its refresh to report, and goes on', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'head-start-'));
    fs.copyFileSync(path.join(FIXTURE_LISTS_DIR, 'consolidated.xml'), path.join(empty, 'consolidated.xml'));
    const early = headStart(['eu_fsf', 'un_sc'], empty);
    const failed = await early.take('eu_fsf');
    expect(failed && 'failure' in failed && String(failed.failure)).toMatch(/xmlFullSanctionsList/i);
    expect(version(await early.take('un_sc')).parsed.entityCount).toBe(FIXTURE_ENTITY_COUNTS.un_sc);
    fs.rmSync(empty, { recursive: true, force: true });
  });

  it('stopped, it ends its thread and what it had not done fails as stopped', async () => {
    const early = headStart(['un_sc', 'eu_fsf', 'uk_fcdo']);
    await early.stop();
    const last = await early.take('uk_fcdo');
    expect(last && 'failure' in last).toBe(true);
  });
});
