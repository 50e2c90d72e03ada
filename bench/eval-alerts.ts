import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { parseUnXml } from '../src/sources/lists/parsers/un-xml.js';
import { seededRandom } from './matching/queries.js';
import {
  apiCall,
  liftAccountLimits,
  type RunningService,
  startService,
  waitUntilHealthy,
} from './support/service.js';

/**
 * Alert precision and recall through the running service (`npm run eval:alerts`), on every list of
 * `LISTS_DIR` with the default options:
 * - false alarms: every party of `negatives_dev.csv` (in `MATCHING_DATA_DIR`), on no list, screened
 *   by name and kind; the share at each risk level, for people and companies apart;
 * - recall: every UN individual and entity screened by its primary name with one typo in one word
 *   (only the UN list asked, so "first" means its own record): first, and high or above;
 * - with a wrong type: the parties of `negatives_dev.csv` and `common_names_dev.csv` screened with a
 *   type they are not (people as organisations, companies as people), and the UN records by their
 *   primary name with one typo and the wrong type: found, and medium or above;
 * - with birth dates: the people of the negatives screened with their birth date and nationality,
 *   and the UN individuals that have a birth date screened with a typo and their own birth date
 *   (first, high or above) or one 15 years off (their flag at most medium).
 */

const listsDir = process.env.LISTS_DIR;
const matchingDir = process.env.MATCHING_DATA_DIR;
if (!listsDir || !matchingDir) {
  console.log(
    'eval:alerts skipped: set LISTS_DIR (the list mirror) and MATCHING_DATA_DIR (negatives_dev.csv).',
  );
  process.exit(0);
}
const CONCURRENCY = 8;
const LEVELS = ['low', 'medium', 'high', 'critical'] as const;
type Level = (typeof LEVELS)[number];

interface Negative {
  kind: string;
  name: string;
  date_of_birth: string;
  nationality: string;
}

interface Screened {
  risk_level: Level;
  risk_score: number;
  flags: {
    source: string;
    match_score: number;
    details: {
      source_id: string;
      matched_name: string;
      kind_mismatch?: boolean;
      match_explanation?: { secondary?: { field: string; outcome: string }[] };
    };
  }[];
}

async function screenAll<T>(
  items: readonly T[],
  body: (item: T, index: number) => unknown,
  service: RunningService,
) {
  const results: Screened[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const k = next++;
        results[k] = await apiCall<Screened>(service, service.key, 'POST', '/v1/screen', body(items[k]!, k));
      }
    }),
  );
  return results;
}

const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(2)}%`;

async function falseAlarms(service: RunningService): Promise<void> {
  const rows = readNegatives();
  console.log('## False alarms: negatives_dev.csv, name and kind only\n');
  console.log('| kind | parties | low | medium | high | critical | medium or above | high or above |');
  console.log('|---|---|---|---|---|---|---|---|');
  const worst: string[] = [];
  for (const kind of ['person', 'company']) {
    const parties = rows.filter((r) => r.kind === kind);
    const results = await screenAll(parties, (p) => ({ query: p.name, type: typeOf(kind) }), service);
    const count = (levels: readonly Level[]) => results.filter((r) => levels.includes(r.risk_level)).length;
    console.log(
      `| ${kind} | ${parties.length} | ${LEVELS.map((l) => pct(count([l]), parties.length)).join(' | ')} | ` +
        `${pct(count(['medium', 'high', 'critical']), parties.length)} | ${pct(count(['high', 'critical']), parties.length)} |`,
    );
    results.forEach((r, k) => {
      if (r.risk_level === 'high' || r.risk_level === 'critical')
        worst.push(
          `${kind} "${parties[k]!.name}" ${r.risk_score}: ${r.flags[0]?.details.matched_name} (${r.flags[0]?.source} ${r.flags[0]?.match_score})`,
        );
    });
  }
  console.log(`\nHigh or above (${worst.length}), the first 40:`);
  for (const line of worst.slice(0, 40)) console.log(`- ${line}`);
}

/** The party's type as the eval screens it, or the wrong one (people as organisations, others as people). */
const typeOf = (kind: string, wrong = false) => ((kind === 'person') !== wrong ? 'person' : 'organization');

interface CommonName {
  full_name: string;
  kind: string;
}

async function falseAlarmsWithWrongType(service: RunningService): Promise<void> {
  const common = parse(readFileSync(path.join(matchingDir!, 'common_names_dev.csv'), 'utf8'), {
    columns: true,
    skip_empty_lines: true,
  }) as CommonName[];
  const sets = [
    { set: 'negatives_dev.csv', parties: readNegatives().map((r) => ({ name: r.name, kind: r.kind })) },
    { set: 'common_names_dev.csv', parties: common.map((r) => ({ name: r.full_name, kind: r.kind })) },
  ];
  console.log('\n## False alarms: parties on no list screened with a wrong type\n');
  console.log(
    '| set | kind, screened as | parties | low | medium | high | critical | medium or above | high or above |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  const worst: string[] = [];
  for (const { set, parties } of sets) {
    for (const person of [true, false]) {
      const group = parties.filter((p) => (p.kind === 'person') === person);
      const results = await screenAll(group, (p) => ({ query: p.name, type: typeOf(p.kind, true) }), service);
      console.log(
        `| ${set} | ${person ? 'person as organization' : 'company as person'} | ${group.length} | ${levelShares(results)} |`,
      );
      results.forEach((r, k) => {
        if (r.risk_level !== 'low')
          worst.push(
            `"${group[k]!.name}" ${r.risk_level} ${r.risk_score}: ${r.flags[0]?.details.matched_name} (${r.flags[0]?.source} ${r.flags[0]?.match_score}${r.flags[0]?.details.kind_mismatch ? ', kind mismatch' : ''})`,
          );
      });
    }
  }
  console.log(`\nMedium or above (${worst.length}), the first 30:`);
  for (const line of worst.slice(0, 30)) console.log(`- ${line}`);
}

function readNegatives(): Negative[] {
  return parse(readFileSync(path.join(matchingDir!, 'negatives_dev.csv'), 'utf8'), {
    columns: true,
    skip_empty_lines: true,
  }) as Negative[];
}

function levelShares(results: readonly Screened[]): string {
  const count = (levels: readonly Level[]) => results.filter((r) => levels.includes(r.risk_level)).length;
  return (
    `${LEVELS.map((l) => pct(count([l]), results.length)).join(' | ')} | ` +
    `${pct(count(['medium', 'high', 'critical']), results.length)} | ${pct(count(['high', 'critical']), results.length)}`
  );
}

async function falseAlarmsWithFacts(service: RunningService): Promise<void> {
  const negatives = readNegatives().filter((r) => r.kind === 'person' && r.date_of_birth && r.nationality);
  await falseAlarmsOfPeopleWithFacts(service, 'negatives_dev.csv', negatives);
  const common = parse(readFileSync(path.join(matchingDir!, 'common_names_dev.csv'), 'utf8'), {
    columns: true,
    skip_empty_lines: true,
  }) as Record<string, string>[];
  await falseAlarmsOfPeopleWithFacts(
    service,
    'common_names_dev.csv',
    common
      .filter((r) => r.kind === 'person' && r.date_of_birth && r.nationality)
      .map((r) => ({
        kind: 'person',
        name: r.full_name!,
        date_of_birth: r.date_of_birth!,
        nationality: r.nationality!.toUpperCase(),
      })),
  );
}

async function falseAlarmsOfPeopleWithFacts(
  service: RunningService,
  set: string,
  people: readonly Negative[],
): Promise<void> {
  const results = await screenAll(
    people,
    (p) => ({ query: p.name, type: 'person', date_of_birth: p.date_of_birth, countries: [p.nationality] }),
    service,
  );
  console.log(`\n## False alarms: the people of ${set} with their birth date and nationality\n`);
  console.log(
    '| parties | low | medium | high | critical | medium or above | high or above |\n|---|---|---|---|---|---|---|',
  );
  console.log(`| ${people.length} | ${levelShares(results)} |`);
  // A birth date can only rule out a record that states one: the rest is judged on the name alone.
  const undated = (r: Screened) =>
    r.flags[0]?.details.match_explanation?.secondary?.some(
      (s) => s.field === 'date_of_birth' && s.outcome === 'unknown',
    ) === true;
  const alerted = (levels: readonly Level[]) => results.filter((r) => levels.includes(r.risk_level));
  const mediumOrAbove = alerted(['medium', 'high', 'critical']);
  const highOrAbove = alerted(['high', 'critical']);
  console.log(
    `\nStrongest flag on a record that states no birth date: ${mediumOrAbove.filter(undated).length} of the ` +
      `${mediumOrAbove.length} medium or above, ${highOrAbove.filter(undated).length} of the ${highOrAbove.length} high or above.`,
  );
  const worst = results.flatMap((r, k) =>
    r.risk_level === 'high' || r.risk_level === 'critical'
      ? [`"${people[k]!.name}" ${r.risk_score}: ${r.flags[0]?.details.matched_name}`]
      : [],
  );
  for (const line of worst.slice(0, 20)) console.log(`- ${line}`);
}

/** A year 15 years away from the birth date's first year, in the past. */
function fifteenYearsOff(date: string): string {
  const year = Number(date.slice(0, 4));
  return String(year + 15 <= 2010 ? year + 15 : year - 15);
}

/**
 * The birth date as another source may record it: a year off (the rest kept), or, for a full date
 * whose day could be a month, with day and month swapped. `undefined` for a date given as a year.
 */
function nearBirthDate(date: string, random: () => number): string | undefined {
  if (date.length < 7) return undefined;
  const [year, month, day] = date.split('-');
  if (day && Number(day) <= 12 && day !== month && random() < 0.5) return `${year}-${day}-${month}`;
  return [String(Number(year) + (random() < 0.5 ? -1 : 1)), month, day].filter(Boolean).join('-');
}

async function recallWithBirthDates(service: RunningService): Promise<void> {
  const parsed = await parseUnXml(
    new Map([['consolidated.xml', readFileSync(path.join(listsDir!, 'consolidated.xml'))]]),
  );
  const random = seededRandom(20261128);
  const people = parsed.entities
    .filter((e) => e.kind === 'person' && e.birth_dates.length > 0)
    .map((e) => ({
      id: e.source_id,
      query: typoInOneWord(e.names[0]!.full, random),
      born: e.birth_dates[0]!.split('/')[0]!,
    }));
  const dateRandom = seededRandom(20261202);
  const near = people.map((p) => nearBirthDate(p.born, dateRandom));
  const body = (date: 'own' | 'off' | 'near') => (p: (typeof people)[number], k: number) => ({
    query: p.query,
    type: 'person',
    date_of_birth: date === 'own' ? p.born : date === 'near' ? near[k]! : fifteenYearsOff(p.born),
    options: { sources: ['un_sc'] },
  });
  const own = await screenAll(people, body('own'), service);
  const off = await screenAll(people, body('off'), service);
  const nearPeople = people.flatMap((p, k) => (near[k] ? [{ p, k }] : []));
  const nearResults = await screenAll(nearPeople, ({ p, k }) => body('near')(p, k), service);
  const nearFirstHigh = nearResults.filter(
    (r, j) =>
      r.flags[0]?.details.source_id === nearPeople[j]!.p.id &&
      (r.risk_level === 'high' || r.risk_level === 'critical'),
  ).length;
  let firstHigh = 0;
  let offMedium = 0;
  const missed: string[] = [];
  own.forEach((r, k) => {
    const first = r.flags[0]?.details.source_id === people[k]!.id;
    // Two records of one name and birth date (a party listed twice) tie: either may come first.
    const tied =
      !first &&
      r.flags.some((f) => f.details.source_id === people[k]!.id && f.match_score === r.flags[0]?.match_score);
    if (first && (r.risk_level === 'high' || r.risk_level === 'critical')) firstHigh++;
    else
      missed.push(
        `"${people[k]!.query}" ${people[k]!.born}: ${first ? 'first' : `first is ${r.flags[0]?.details.matched_name ?? 'none'}${tied ? ' (tied with its own record)' : ''}`}, ${r.risk_level} (${r.flags[0]?.match_score ?? '-'})`,
      );
  });
  off.forEach((r, k) => {
    const flag = r.flags.find((f) => f.details.source_id === people[k]!.id);
    // Its own flag alone: the points a sanctions flag of that score earns, below high.
    if (!flag || flag.match_score < 0.8) offMedium++;
  });
  console.log('\n## Recall with birth dates: UN individuals that have one, a typo in one word\n');
  console.log(
    '| people | own birth date: first and high or above | a year off or day and month swapped (full dates): first and high or above | 15 years off: own flag at most medium |\n|---|---|---|---|',
  );
  console.log(
    `| ${people.length} | ${pct(firstHigh, people.length)} | ${pct(nearFirstHigh, nearPeople.length)} of ${nearPeople.length} | ${pct(offMedium, people.length)} |`,
  );
  console.log(`\nOwn birth date, missed (${missed.length}), the first 20:`);
  for (const line of missed.slice(0, 20)) console.log(`- ${line}`);
}

const LETTER = /\p{L}/u;
const letters = (word: string) => [...word].filter((ch) => LETTER.test(ch)).length;

/**
 * One typo (a deletion, a substitution or a swap of two adjacent letters) at a letter of one word:
 * a word of four letters or more, or the longest word of a name that has none. A typo in a word of
 * two or three letters (`KIM` as `KM`) makes another word more often than a misspelt one.
 */
function typoInOneWord(name: string, random: () => number): string {
  const words = name.split(' ');
  const longest = Math.max(...words.map(letters));
  const eligible = words.flatMap((w, k) => (letters(w) >= Math.min(4, longest) ? [k] : []));
  const at = eligible[Math.floor(random() * eligible.length)]!;
  const chars = [...words[at]!];
  const positions = chars.flatMap((ch, i) => (LETTER.test(ch) ? [i] : []));
  const i = positions[Math.floor(random() * positions.length)]!;
  const kind = Math.floor(random() * 3);
  if (kind === 0) chars.splice(i, 1);
  else if (kind === 1) {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const upper = chars[i]!.toUpperCase();
    chars[i] = alphabet[(alphabet.indexOf(upper) + 1 + Math.floor(random() * 25)) % 26]!;
  } else {
    const j = positions.includes(i + 1) ? i + 1 : positions.includes(i - 1) ? i - 1 : i;
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  words[at] = chars.join('');
  return words.join(' ');
}

/** Every UN record by its primary name with one typo in one word (the same typos on every call). */
async function unTypoQueries() {
  const parsed = await parseUnXml(
    new Map([['consolidated.xml', readFileSync(path.join(listsDir!, 'consolidated.xml'))]]),
  );
  const random = seededRandom(20261127);
  return parsed.entities.map((e) => ({
    id: e.source_id,
    kind: e.kind,
    query: typoInOneWord(e.names[0]!.full, random),
  }));
}

async function unRecallWithWrongType(service: RunningService): Promise<void> {
  const queries = await unTypoQueries();
  const results = await screenAll(
    queries,
    (q) => ({ query: q.query, type: typeOf(q.kind, true), options: { sources: ['un_sc'] } }),
    service,
  );
  let found = 0;
  let alerted = 0;
  results.forEach((r, k) => {
    if (!r.flags.some((f) => f.details.source_id === queries[k]!.id)) return;
    found++;
    if (r.risk_level !== 'low') alerted++;
  });
  console.log('\n## Recall with a wrong type: UN primary names with one typo, UN list only\n');
  console.log('| queries | own record flagged | flagged and medium or above |\n|---|---|---|');
  console.log(`| ${queries.length} | ${pct(found, queries.length)} | ${pct(alerted, queries.length)} |`);
}

async function unRecall(service: RunningService): Promise<void> {
  const queries = await unTypoQueries();
  const results = await screenAll(
    queries,
    (q) => ({
      query: q.query,
      type: typeOf(q.kind),
      options: { sources: ['un_sc'] },
    }),
    service,
  );
  let first = 0;
  let high = 0;
  const missed: string[] = [];
  results.forEach((r, k) => {
    const q = queries[k]!;
    const top = r.flags[0];
    const isFirst = top?.details.source_id === q.id;
    const isHigh = r.risk_level === 'high' || r.risk_level === 'critical';
    if (isFirst) first++;
    if (isFirst && isHigh) high++;
    if (!isFirst || !isHigh)
      missed.push(
        `"${q.query}" (${q.kind}): ${isFirst ? 'first' : `first is ${top?.details.matched_name ?? 'none'}`}, ${r.risk_level} ${r.risk_score} (${top?.match_score ?? '-'})`,
      );
  });
  console.log('\n## Recall: UN primary names with one typo in one word, UN list only\n');
  console.log('| queries | record first | first and high or above |\n|---|---|---|');
  console.log(`| ${queries.length} | ${pct(first, queries.length)} | ${pct(high, queries.length)} |`);
  console.log(`\nMissed (${missed.length}), the first 30:`);
  for (const line of missed.slice(0, 30)) console.log(`- ${line}`);
}

const service = await startService({ LISTS_DIR: listsDir });
try {
  await waitUntilHealthy(service, 1);
  await liftAccountLimits(service);
  await falseAlarms(service);
  await unRecall(service);
  await falseAlarmsWithWrongType(service);
  await unRecallWithWrongType(service);
  await falseAlarmsWithFacts(service);
  await recallWithBirthDates(service);
} finally {
  await service.stop();
}
