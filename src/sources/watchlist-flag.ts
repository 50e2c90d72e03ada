import type { EntityMatch } from '../matching/index.js';
import type { Flag } from './flag.js';
import type { ListEntity } from './list-entity.js';
import { entityDetails, type FlagContext } from './list-flag.js';
import { OFFICIAL_LIST_DATASETS } from './opensanctions-datasets.js';

/** OpenSanctions topics of politically exposed persons and of their relatives and close associates. */
const PEP_TOPICS: readonly string[] = ['role.pep', 'role.rca'];
const SANCTION_TOPIC = 'sanction';

/**
 * A person is politically exposed when the provider tags them so, or when they hold a public
 * position: the Wikidata PEP exports carry no topics, only the Occupancies.
 */
export function isPoliticallyExposed(entity: ListEntity): boolean {
  if (entity.kind !== 'person') return false;
  return (entity.positions?.length ?? 0) > 0 || (entity.topics ?? []).some((t) => PEP_TOPICS.includes(t));
}

/**
 * The official lists enabled on this instance that the entry says it is sanctioned by. FtM
 * records which datasets an entity came from and its topics, not which dataset gave which topic;
 * an entity tagged `sanction` that comes from an official list's dataset is taken to be listed
 * there, which is what OpenSanctions' own dataset pages show.
 */
export function confirmedLists(
  entity: ListEntity,
  enabledLists: readonly string[],
): { dataset: string; source: string }[] {
  if (!(entity.topics ?? []).includes(SANCTION_TOPIC)) return [];
  const datasets = entity.datasets ?? [];
  return OFFICIAL_LIST_DATASETS.filter(
    ({ dataset, source }) => datasets.includes(dataset) && enabledLists.includes(source),
  );
}

/**
 * A flag from a watchlist provider's entry (OpenSanctions, in bulk mode and in API mode alike, so
 * that one entity gives one flag whichever way it was read): `pep` for politically exposed persons,
 * `watchlist` for every other target (sanctioned, sanction-linked, wanted, debarred, ...). A
 * provider's sanction entry is not a sanctions flag of its own: the official list is the
 * authority, and it is screened as a source of its own. When that list is enabled here, the flag
 * says that it `confirms` it, and `list` names that list's dataset.
 */
export function watchlistFlag(entity: ListEntity, match: EntityMatch, context: FlagContext): Flag {
  const confirmed = confirmedLists(entity, context.enabledLists);
  const { caption, schema } = entity.raw;
  return {
    type: isPoliticallyExposed(entity) ? 'pep' : 'watchlist',
    source: entity.source,
    list: confirmed[0]?.dataset.toUpperCase() ?? entity.list,
    match_score: match.score,
    details: {
      ...entityDetails(entity, match),
      entity_id: entity.source_id,
      caption: typeof caption === 'string' ? caption : (entity.names[0]?.full ?? null),
      schema: typeof schema === 'string' ? schema : null,
      topics: entity.topics ?? [],
      datasets: entity.datasets ?? [],
      positions: entity.positions ?? [],
      ...(confirmed.length > 0 ? { confirms: confirmed.map((list) => list.source) } : {}),
    },
  };
}
