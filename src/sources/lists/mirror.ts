import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { matchesOfficialFileName } from './parsers/index.js';
import type { ListParserDescriptor } from './parsers/types.js';

/** One file of a list and where to read it from (http(s):// or file://). */
export interface ListFileLocation {
  name: string;
  url: string;
  required: boolean;
}

/**
 * A mirror folder (`LISTS_DIR`, or the folder of a `file://` override) holds each list's files
 * under their official names, matched case-insensitively and optionally gzip-compressed as
 * `<name>.gz`, because mirrors are filled by hand, by `screening lists fetch`, or by copying from
 * systems that change the case of names.
 */
export async function mirrorFiles(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    throw new Error(`cannot read the list folder ${dir}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
}

export function findInMirror(entries: readonly string[], officialName: string): string | undefined {
  const exact = entries.find((entry) => entry.toLowerCase() === officialName.toLowerCase());
  return exact ?? entries.find((entry) => matchesOfficialFileName(officialName, entry));
}

/**
 * The first format of a list whose required files are all in the folder, with every file of it
 * that is there. `undefined` when no format is complete.
 */
export function locateInMirror(
  dir: string,
  entries: readonly string[],
  parsers: readonly ListParserDescriptor[],
): { parser: ListParserDescriptor; files: ListFileLocation[] } | undefined {
  for (const parser of parsers) {
    const files: ListFileLocation[] = [];
    let complete = true;
    for (const spec of parser.files) {
      const found = findInMirror(entries, spec.name);
      if (found)
        files.push({
          name: spec.name,
          url: pathToFileURL(path.join(dir, found)).href,
          required: spec.required,
        });
      else if (spec.required) complete = false;
    }
    if (complete) return { parser, files };
  }
  return undefined;
}
