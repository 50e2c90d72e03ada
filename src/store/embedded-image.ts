import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmbeddedImage } from './database.js';
import { LATEST_MIGRATION } from './migrate.js';

/**
 * The image of an empty, migrated embedded database that the build writes beside the compiled
 * program (`dist/`): the data files of a database opened and migrated there. A first start on a
 * fresh data folder copies them instead of running PGlite's initdb and every migration, which cost
 * seconds of CPU; a restart opens its own files as before. The image is used only when it was made
 * by the PGlite and the migrations this program runs: otherwise (or run from source, where there is
 * none) the database is created as before.
 */
const IMAGE_FOLDER = fileURLToPath(new URL('../embedded-database', import.meta.url));
const STAMP_FILE = fileURLToPath(new URL('../embedded-database.json', import.meta.url));

/** What an image depends on: PGlite's version (its data files' format) and the newest migration. */
function embeddedImageStamp(): { pglite: string; migration: string } {
  const require = createRequire(import.meta.url);
  let dir = path.dirname(require.resolve('@electric-sql/pglite'));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    version: string;
  };
  return { pglite: version, migration: LATEST_MIGRATION };
}

/** Whether the build's image is there, made by this PGlite for these migrations. */
function currentImageExists(): boolean {
  try {
    const stamp = JSON.parse(fs.readFileSync(STAMP_FILE, 'utf8'));
    return (
      JSON.stringify(stamp) === JSON.stringify(embeddedImageStamp()) &&
      fs.existsSync(path.join(IMAGE_FOLDER, 'PG_VERSION'))
    );
  } catch {
    return false;
  }
}

/** The built image, when there is a current one. */
export function shippedEmbeddedImage(): EmbeddedImage | undefined {
  return currentImageExists() ? { folder: IMAGE_FOLDER } : undefined;
}

/** Writes the image with `make` (the build does), unless a current one is there already. */
export async function writeShippedEmbeddedImage(
  make: (folder: string) => Promise<void>,
): Promise<'written' | 'current'> {
  if (currentImageExists()) return 'current';
  fs.rmSync(STAMP_FILE, { force: true });
  fs.rmSync(IMAGE_FOLDER, { recursive: true, force: true });
  // The tarball earlier builds wrote.
  fs.rmSync(`${IMAGE_FOLDER}.tar.gz`, { force: true });
  await make(IMAGE_FOLDER);
  fs.writeFileSync(STAMP_FILE, `${JSON.stringify(embeddedImageStamp())}\n`);
  return 'written';
}
