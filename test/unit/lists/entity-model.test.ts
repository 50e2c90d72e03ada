import { describe, expect, it } from 'vitest';
import type { EntityKind, ListEntity, NameType } from '../../../src/sources/list-entity.js';
import { LIST_PARSERS } from '../../../src/sources/lists/list-registry.js';
import { matchesOfficialFileName } from '../../../src/sources/lists/parsers/index.js';
import { parseFromMirror } from './mirror.js';

// The shape the matching layer consumes (built in parallel in src/matching); a ListEntity plus
// its key must satisfy it without conversion.
interface MatchableEntity {
  key: string;
  source: string;
  kind: EntityKind;
  names: { full: string; type: NameType; script?: string }[];
}

function toMatchable(entity: ListEntity): MatchableEntity {
  return { ...entity, key: `${entity.source}:${entity.source_id}` };
}

describe('the common list entity model', () => {
  it('every parsed entity has a primary name first and a key unique within its source', async () => {
    const un = await parseFromMirror('un_sc');
    const keys = un.entities.map(toMatchable).map((m) => m.key);
    expect(new Set(keys).size).toBe(un.entities.length);
    expect(keys[0]).toMatch(/^un_sc:\d+$/);
    expect(un.entities.every((e) => e.names[0]?.type === 'primary')).toBe(true);
    expect(un.entities.every((e) => e.names.filter((n) => n.type === 'primary').length === 1)).toBe(true);
  });

  it('the registry names each source once per format and matches mirror files ignoring case and .gz', () => {
    const ids = LIST_PARSERS.map((p) => `${p.id}/${p.format}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(LIST_PARSERS.map((p) => p.id))).toEqual(
      new Set(['ofac_sdn', 'ofac_cons', 'un_sc', 'eu_fsf', 'uk_fcdo', 'uk_ofsi', 'us_csl', 'opensanctions']),
    );
    expect(matchesOfficialFileName('SDN.CSV', 'sdn.csv')).toBe(true);
    expect(matchesOfficialFileName('ConList.csv', 'ConList.csv.gz')).toBe(true);
    expect(matchesOfficialFileName('SDN.CSV', 'sdn.csv.bak')).toBe(false);
  });
});
