import type { HeldPosition, PartialDate } from '../list-entity.js';
import { parseDate } from './dates.js';
import { type FtmEntity, ftmCountry, references, texts } from './ftm-entity.js';
import type { FtmGraph } from './ftm-graph.js';
import { pushUnique } from './text.js';

/**
 * The positions a person holds or held: one per `Occupancy` whose holder is the person, named by
 * the `Position` it occupies (its `post`), dated by the Occupancy. Holding any Occupancy is what
 * makes a person a PEP in data without topics (the Wikidata PEP exports).
 */
export function positionsHeld(person: FtmEntity, graph: FtmGraph): HeldPosition[] {
  const held = graph.adjacent(person.id, 'Occupancy').map((occupancy) => heldPosition(occupancy, graph));
  nameTheOnlyUnnamedPosition(held, texts(person, 'position'));
  return held;
}

function heldPosition(occupancy: FtmEntity, graph: FtmGraph): HeldPosition {
  const post = references(occupancy, 'post')
    .map((id) => graph.entity(id))
    .find((entity) => entity?.schema === 'Position');
  const holders = references(occupancy, 'holder');
  const position: HeldPosition = {};
  const name = post ? (texts(post, 'name')[0] ?? post.caption) : positionAllHoldersState(holders, graph);
  if (name) position.name = name;
  const countries: string[] = [];
  for (const country of post ? texts(post, 'country') : []) pushUnique(countries, ftmCountry(country));
  if (countries.length > 0) position.countries = countries;
  if (holders.length <= 1) addTenure(position, occupancy);
  return position;
}

/**
 * Some exports merge every holder of one office into one Occupancy and leave out its `post`. The
 * office is then the one position that every holder states in their own `position` property;
 * when they share none, or more than one, the Occupancy stays unnamed rather than named by guess.
 */
function positionAllHoldersState(holders: readonly string[], graph: FtmGraph): string | undefined {
  if (holders.length < 2) return undefined;
  const stated = holders.map((id) => {
    const holder = graph.entity(id);
    return holder ? texts(holder, 'position') : [];
  });
  const common = stated[0]!.filter((text) =>
    stated.every((texts) => texts.some((other) => other.toLowerCase() === text.toLowerCase())),
  );
  return common.length === 1 ? common[0] : undefined;
}

/**
 * An Occupancy is one person's tenure of one office; a merged one (above) has dates that belong
 * to no holder in particular, so dates are read from an Occupancy with one holder only. Several
 * dates of one holder are several tenures of the same office, reported as the span from the
 * first start to the last end.
 */
function addTenure(position: HeldPosition, occupancy: FtmEntity): void {
  const dates = (property: string) =>
    texts(occupancy, property)
      .map((text) => parseDate(text))
      .filter((date): date is PartialDate => date !== undefined)
      .sort();
  const start = dates('startDate')[0];
  if (start) position.start_date = start;
  const end = dates('endDate').at(-1);
  if (end) position.end_date = end;
  const status = texts(occupancy, 'status')[0];
  if (status) position.status = status;
}

/**
 * An Occupancy may also lack its Position while its holder states the office in words. When
 * exactly one Occupancy of the person is unnamed and exactly one stated position is not already
 * named by another, they are the same office; with more of either the pairing would be a guess.
 */
function nameTheOnlyUnnamedPosition(held: HeldPosition[], stated: readonly string[]): void {
  const unnamed = held.filter((position) => position.name === undefined);
  const named = new Set(held.map((position) => position.name?.toLowerCase()));
  const leftover = stated.filter((text) => !named.has(text.toLowerCase()));
  if (unnamed.length === 1 && leftover.length === 1) unnamed[0]!.name = leftover[0]!;
}
