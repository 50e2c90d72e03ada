import { mkdir, rename, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { listSettingsFromConfig } from '../source-settings.js';
import { fetchList } from '../sources/lists/list-fetcher.js';
import { locateList } from '../sources/lists/list-location.js';
import { LIST_REGISTRY, parsersOf, registeredList } from '../sources/lists/list-registry.js';
import { publicationDate } from '../sources/lists/publication-date.js';
import { type AdminClient, CliError } from './admin-client.js';

export const LISTS_USAGE = `screening lists status
screening lists refresh [--force] [LIST_ID]
screening lists fetch --out DIR [LIST_ID ...]`;

/** A refresh downloads and parses up to 25 MB per file; the operator waits for the outcome. */
export const CLI_REFRESH_TIMEOUT_MS = 10 * 60_000;

export interface ListsCommandResult {
  output: unknown;
  /** 0 when everything worked; 3 when a refresh or a fetch failed or was rejected. */
  code: number;
}

/** `screening lists ...`: status and refresh through the running server; fetch works alone. */
export async function runLists(
  args: string[],
  deps: { client: () => AdminClient; config: Config },
): Promise<ListsCommandResult> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { force: { type: 'boolean' }, out: { type: 'string' } },
    allowPositionals: true,
  });
  switch (action) {
    case 'status':
      return { output: await deps.client().call('GET', '/admin/v1/lists'), code: 0 };
    case 'refresh':
      return refresh(deps.client(), positionals[0], values.force ?? false);
    case 'fetch': {
      if (!values.out) throw new CliError(`Missing --out DIR.\n${LISTS_USAGE}`);
      return fetchMirror(deps.config, path.resolve(values.out), positionals);
    }
    default:
      throw new CliError(`Unknown command "lists ${action ?? ''}".\n${LISTS_USAGE}`);
  }
}

interface Report {
  outcome: string;
  detail: string;
}

async function refresh(client: AdminClient, listId: string | undefined, force: boolean) {
  const ids =
    listId !== undefined
      ? [listId]
      : ((await client.call('GET', '/admin/v1/lists')) as { data: { id: string }[] }).data.map((l) => l.id);
  const reports: unknown[] = [];
  let code = 0;
  for (const id of ids) {
    const url = `/admin/v1/lists/${encodeURIComponent(id)}/refresh${force ? '?force=true' : ''}`;
    const report = (await client.call('POST', url, undefined, CLI_REFRESH_TIMEOUT_MS)) as Report;
    if (report.outcome === 'failed' || report.outcome === 'rejected') code = 3;
    reports.push(report);
  }
  return { output: listId !== undefined ? reports[0] : { data: reports }, code };
}

/**
 * Downloads the files of the enabled lists (or the ones named) from their sources into `out`
 * under their official names, for an air-gapped mirror (`LISTS_DIR`). Each list is parsed before
 * its files are written, so a login page or a truncated file never lands in the mirror.
 */
async function fetchMirror(config: Config, out: string, ids: string[]): Promise<ListsCommandResult> {
  const settings = listSettingsFromConfig(config);
  const wanted = ids.length > 0 ? ids : settings.enabled;
  const unknown = wanted.filter((id) => !registeredList(id));
  if (unknown.length > 0) {
    throw new CliError(
      `Unknown lists ${unknown.join(', ')}; known: ${LIST_REGISTRY.map((e) => e.id).join(', ')}.`,
    );
  }
  await mkdir(out, { recursive: true });
  const results: Record<string, unknown>[] = [];
  for (const id of wanted) {
    try {
      results.push({ id, ...(await fetchOne(id, settings, out)) });
    } catch (error) {
      results.push({ id, outcome: 'failed', error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { output: { out, data: results }, code: results.some((r) => r.outcome === 'failed') ? 3 : 0 };
}

async function fetchOne(id: string, settings: ReturnType<typeof listSettingsFromConfig>, out: string) {
  const entry = registeredList(id)!;
  const location = await locateList(entry, parsersOf(id), {
    override: settings.urlOverrides?.[id],
    listsDir: undefined,
  });
  const fetched = await fetchList(location, {
    timeoutMs: settings.downloadTimeoutMs,
    maxBytes: settings.maxDownloadBytes,
  });
  if (fetched.status !== 'fetched') throw new Error('the source answered 304 to a plain GET');
  const parsed = await fetched.parser.parse(new Map(fetched.contents));
  for (const [name, bytes] of fetched.contents) {
    const target = path.join(out, name);
    await writeFile(`${target}.part`, bytes);
    // The mirror keeps the publisher's Last-Modified: the date of a list whose file states none.
    const lastModified = Date.parse(fetched.files.find((f) => f.name === name)?.lastModified ?? '');
    if (!Number.isNaN(lastModified)) await utimes(`${target}.part`, new Date(), new Date(lastModified));
    await rename(`${target}.part`, target);
  }
  return {
    outcome: 'fetched',
    version: fetched.version,
    list_date: publicationDate(parsed.listDate, fetched.files) ?? null,
    entity_count: parsed.entities.length,
    files: fetched.files.map((f) => ({ name: f.name, sha256: f.sha256, bytes: f.bytes })),
  };
}
