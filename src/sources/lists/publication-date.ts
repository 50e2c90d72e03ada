import type { ListFileRecord } from './list-fetcher.js';

/**
 * A list version's publication date (`YYYY-MM-DD`): the date its file states (UN `dateGenerated`,
 * EU `generationDate`, UK `DateGenerated`, OFSI `Last Updated`, OFAC's `dataAsOf`), else the
 * `Last-Modified` of its main file (OFAC's legacy CSV and the US CSL state none), which for a file
 * read from a folder is its modification time (`screening lists fetch` sets it to the download's).
 */
export function publicationDate(
  stated: string | undefined,
  files: readonly ListFileRecord[],
): string | undefined {
  if (stated) return stated;
  const lastModified = files[0]?.lastModified;
  const time = lastModified ? Date.parse(lastModified) : Number.NaN;
  return Number.isNaN(time) ? undefined : new Date(time).toISOString().slice(0, 10);
}
