import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ListRegistryEntry } from './list-registry.js';
import { type ListFileLocation, locateInMirror, mirrorFiles } from './mirror.js';
import { matchesOfficialFileName } from './parsers/index.js';
import type { ListParserDescriptor } from './parsers/types.js';

/** Where one list's files are read from, and which format (parser) they are in. */
export interface ListLocation {
  parser: ListParserDescriptor;
  files: ListFileLocation[];
}

export interface LocationSettings {
  /** The list's URL override (its env var), if set. */
  override: string | undefined;
  listsDir: string | undefined;
}

/**
 * Resolves a list's files, most specific first: the list's own URL override, then the mirror
 * folder `LISTS_DIR`, then the official addresses. Resolved at every refresh, so a mirror that is
 * filled after start-up is picked up without a restart.
 */
export async function locateList(
  entry: ListRegistryEntry,
  parsers: readonly ListParserDescriptor[],
  settings: LocationSettings,
): Promise<ListLocation> {
  if (settings.override) return locateOverride(parsers, settings.override);
  if (settings.listsDir) return locateMirror(entry, parsers, settings.listsDir);
  const parser = parsers[0]!;
  return {
    parser,
    files: parser.files.map((spec) => ({
      name: spec.name,
      url: entry.officialUrls[spec.name] ?? '',
      required: spec.required,
    })),
  };
}

async function locateMirror(
  entry: ListRegistryEntry,
  parsers: readonly ListParserDescriptor[],
  dir: string,
): Promise<ListLocation> {
  const located = locateInMirror(dir, await mirrorFiles(dir), parsers);
  if (!located) {
    const wanted = parsers.map((p) =>
      p.files
        .filter((f) => f.required)
        .map((f) => f.name)
        .join(' + '),
    );
    throw new Error(`${entry.id}: ${dir} holds none of ${wanted.join(' or ')}`);
  }
  return located;
}

/**
 * The override names the list's main file; its format is recognised by the file name (so
 * LIST_URL_OFAC_CONS may point at CONS_ENHANCED.ZIP), and a multi-file list's other files are
 * read beside it under their official names.
 */
async function locateOverride(
  parsers: readonly ListParserDescriptor[],
  override: string,
): Promise<ListLocation> {
  const url = new URL(override);
  const base = decodeURIComponent(path.posix.basename(url.pathname));
  const parser = parsers.find((p) => matchesOfficialFileName(p.files[0]!.name, base)) ?? parsers[0]!;
  if (url.protocol === 'file:') {
    const dir = path.dirname(fileURLToPath(url));
    const located = locateInMirror(dir, await mirrorFiles(dir), [parser]);
    const others = located?.files.filter((f) => f.name !== parser.files[0]!.name) ?? [];
    const main = { name: parser.files[0]!.name, url: url.href, required: true };
    return { parser, files: [main, ...others] };
  }
  return {
    parser,
    files: parser.files.map((spec, i) => ({
      name: spec.name,
      url: i === 0 ? url.href : new URL(spec.name, url).href,
      required: spec.required,
    })),
  };
}
