import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The folder order of src/, top to bottom, as docs/architecture.md draws it. A module may import
 * from its own unit and from the units of lower rows; never from a unit of its own row or above.
 * A unit is a folder or a file of src/; a module belongs to the longest unit its path starts with.
 */
const FOLDER_ORDER: readonly (readonly string[])[] = [
  ['main.ts', 'cli'],
  ['cluster.ts'],
  ['server.ts'],
  ['app.ts', 'runtime.ts'],
  ['source-settings.ts'],
  ['dashboard'],
  ['http'],
  ['metrics'],
  ['health.ts', 'screening'],
  ['webhooks'],
  ['accounts', 'audit'],
  ['sources/list-matching'],
  ['config.ts'],
  ['sources/providers', 'sources/lists'],
  ['store'],
  ['sources'],
  ['matching'],
  [
    'background-work.ts',
    'clock.ts',
    'collect-garbage.ts',
    'errors.ts',
    'ids.ts',
    'own-bytes.ts',
    'start-thread.ts',
    'thread-priority.ts',
    'time-limit.ts',
    'well-formed-json.ts',
    'work-slices.ts',
  ],
];

const SRC = path.resolve(import.meta.dirname, '../../../src');

function modulesOf(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return modulesOf(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative specifiers of a module's static and dynamic imports and re-exports. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const pattern = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)'(\.{1,2}\/[^']+)'/g;
  return [...text.matchAll(pattern)].map((match) => match[1] as string);
}

function unitOf(file: string): string | undefined {
  const relative = path.relative(SRC, file).split(path.sep).join('/');
  const units = FOLDER_ORDER.flat().filter((unit) => relative === unit || relative.startsWith(`${unit}/`));
  return units.sort((a, b) => b.length - a.length)[0];
}

const rowOf = new Map(FOLDER_ORDER.flatMap((row, index) => row.map((unit) => [unit, index] as const)));

describe('folder order', () => {
  const modules = modulesOf(SRC);

  it('places every module of src/ in a unit', () => {
    expect(
      modules.filter((file) => unitOf(file) === undefined).map((file) => path.relative(SRC, file)),
    ).toEqual([]);
  });

  it('has no module importing a unit of its own row or above', () => {
    const upward: string[] = [];
    for (const file of modules) {
      const from = unitOf(file);
      if (from === undefined) continue;
      for (const specifier of importsOf(file)) {
        const to = unitOf(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
        if (to === undefined || to === from) continue;
        if ((rowOf.get(to) ?? -1) <= (rowOf.get(from) ?? -1))
          upward.push(`${path.relative(SRC, file)} imports ${specifier} (${from} -> ${to})`);
      }
    }
    expect(upward).toEqual([]);
  });
});
