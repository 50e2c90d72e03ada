import fs from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { embeddedDatabaseImage } from '../../src/store/database.js';

/**
 * Every test app on the embedded default opens a new database (in memory, or in a folder for the
 * restart tests): each starts from one image, made once per run by the global setup through the
 * service's own open-and-migrate path, rather than paying PGlite's initdb per app, as the built
 * service starts from the image its build wrote. The tests of opening the embedded database still
 * start from an empty cluster.
 */
export async function writeEmbeddedImage(dir: string): Promise<string> {
  const file = path.join(dir, 'embedded-database.tar');
  fs.writeFileSync(file, Buffer.from(await (await embeddedDatabaseImage()).arrayBuffer()));
  return file;
}

let image: Promise<Blob> | undefined;

/** The run's image, read once per test file. */
export function embeddedImage(): Promise<Blob> {
  image ??= fs.openAsBlob(inject('embeddedImagePath'));
  return image;
}
