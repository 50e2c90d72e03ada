import { normaliseIdentifier } from '../matching/index.js';
import type { Flag } from '../sources/flag.js';

/**
 * Which flags of one screening refer to the same listed party. Two lists matching the query is no
 * evidence by itself that they list the same party ("John Smith" on one list and the alias "John"
 * of another person on a second), so flags are joined only by what the records say of themselves:
 * - a shared identifier of the same kind (passport, IMO number, LEI, wallet address, ...);
 * - the data's own cross-reference: an aggregator's entry that `confirms` an official list, and the
 *   flag of that list, when both match the query well (CROSS_REFERENCE_MIN_SCORE);
 * - strong name matches on both (STRONG_NAME_MIN_SCORE) of the same kind of party, whose birth
 *   dates and nationalities do not contradict where both records state them; or good ones
 *   (CROSS_REFERENCE_MIN_SCORE) whose records give one and the same full birth date, which few
 *   namesakes share (`SADDAM HUSSEIN AL-TIKRITI`, born 1937-04-28, and `Saddam HUSSEIN`, too).
 * Every flag of a list record gets `details.party`, the key of its group's strongest flag
 * (`source:source_id`), so a client can show a party's flags together.
 */
export const STRONG_NAME_MIN_SCORE = 0.9;
export const CROSS_REFERENCE_MIN_SCORE = 0.8;

/** Identifier kinds that name one party; contact details (email, phone, website) may be shared. */
const PARTY_IDENTIFIER_TYPES: ReadonlySet<string> = new Set([
  'passport',
  'national_id',
  'tax_id',
  'registration_number',
  'lei',
  'swift_bic',
  'imo',
  'mmsi',
  'call_sign',
  'aircraft_serial',
  'aircraft_tail_number',
  'crypto_address',
  'isin',
  'duns',
]);

interface PartyFacts {
  key: string;
  source: string;
  score: number;
  kind: string | undefined;
  identifiers: Set<string>;
  confirms: readonly string[];
  birthYears: [number, number][];
  /** Birth dates stated to the day. */
  birthDays: Set<string>;
  nationalities: Set<string>;
}

/** The flags with `details.party` set on those that come from a list record (others are left as they are). */
export function assignParties(flags: readonly Flag[]): Flag[] {
  const facts = flags.map(partyFacts);
  const parent = flags.map((_, k) => k);
  const root = (k: number): number => {
    while (parent[k] !== k) k = parent[k] = parent[parent[k]!]!;
    return k;
  };
  for (let a = 0; a < flags.length; a++) {
    for (let b = a + 1; b < flags.length; b++) {
      const [fa, fb] = [facts[a], facts[b]];
      if (fa && fb && sameParty(fa, fb)) {
        const [ra, rb] = [root(a), root(b)];
        // The group's key is its strongest flag's (flags come strongest first: the lower index).
        if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
      }
    }
  }
  return flags.map((flag, k) => {
    const own = facts[k];
    if (!own) return flag;
    return { ...flag, details: { ...flag.details, party: facts[root(k)]!.key } };
  });
}

/** The party key of each flag that has one (see `assignParties`). */
export function partyOf(flag: Flag): string | undefined {
  const party = flag.details.party;
  return typeof party === 'string' ? party : undefined;
}

function sameParty(a: PartyFacts, b: PartyFacts): boolean {
  if (a.source === b.source) return false;
  for (const id of a.identifiers) if (b.identifiers.has(id)) return true;
  const crossReferenced = a.confirms.includes(b.source) || b.confirms.includes(a.source);
  if (crossReferenced && Math.min(a.score, b.score) >= CROSS_REFERENCE_MIN_SCORE) return true;
  if (!kindsAgree(a.kind, b.kind) || nationalitiesContradict(a.nationalities, b.nationalities)) return false;
  const weaker = Math.min(a.score, b.score);
  if (weaker >= CROSS_REFERENCE_MIN_SCORE && shareAny(a.birthDays, b.birthDays)) return true;
  return weaker >= STRONG_NAME_MIN_SCORE && !birthDatesContradict(a.birthYears, b.birthYears);
}

function shareAny(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const value of a) if (b.has(value)) return true;
  return false;
}

function kindsAgree(a: string | undefined, b: string | undefined): boolean {
  return a === b || a === undefined || b === undefined || a === 'unknown' || b === 'unknown';
}

/** Year ranges of the two records that do not come within a year of each other (lists often round). */
function birthDatesContradict(a: readonly [number, number][], b: readonly [number, number][]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  return !a.some(([aFrom, aTo]) => b.some(([bFrom, bTo]) => aFrom <= bTo + 1 && bFrom <= aTo + 1));
}

function nationalitiesContradict(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  for (const code of a) if (b.has(code)) return false;
  return true;
}

function partyFacts(flag: Flag): PartyFacts | undefined {
  const d = flag.details;
  if (typeof d.source_id !== 'string') return undefined;
  return {
    key: `${flag.source}:${d.source_id}`,
    source: flag.source,
    score: flag.match_score,
    kind: typeof d.kind === 'string' ? d.kind : undefined,
    identifiers: identifierKeys(d.identifiers),
    confirms: strings(d.confirms),
    birthYears: strings(d.birth_dates).flatMap((date) => {
      const years = yearRange(date);
      return years ? [years] : [];
    }),
    birthDays: new Set(strings(d.birth_dates).filter((date) => FULL_DATE.test(date))),
    // Only ISO codes are compared: a country the parser could not resolve is kept as written.
    nationalities: new Set(strings(d.nationalities).filter((c) => /^[A-Z]{2}$/.test(c))),
  };
}

const FULL_DATE = /^\d{4}-\d{2}-\d{2}$/;

function identifierKeys(value: unknown): Set<string> {
  const keys = new Set<string>();
  if (!Array.isArray(value)) return keys;
  for (const id of value) {
    if (typeof id !== 'object' || id === null) continue;
    const { type, value: text } = id as { type?: unknown; value?: unknown };
    if (typeof type !== 'string' || typeof text !== 'string' || !PARTY_IDENTIFIER_TYPES.has(type)) continue;
    const normalised = normaliseIdentifier(type, text);
    // Short values ("1", "A12") are record numbers or fragments more often than identifiers.
    if (normalised.length >= 5) keys.add(`${type}:${normalised}`);
  }
  return keys;
}

/** The years a birth date (`YYYY`, `YYYY-MM`, `YYYY-MM-DD` or a range `FROM/TO`) covers. */
function yearRange(date: string): [number, number] | undefined {
  const [from, to = from] = date.split('/');
  const [a, b] = [Number.parseInt(from!, 10), Number.parseInt(to!, 10)];
  return Number.isFinite(a) && Number.isFinite(b) ? [Math.min(a, b), Math.max(a, b)] : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
