import { loadListEntities } from '../matching/list-names.js';

/** The scripts the synthetic names are written in. */
export type Script = 'latin' | 'cyrillic' | 'arabic' | 'han';
export const SCRIPTS: readonly Script[] = ['latin', 'cyrillic', 'arabic', 'han'];

type Pools = Record<Script, string[]>;

/**
 * Name tokens harvested from real lists, each kept once per occurrence, so that drawing uniformly
 * from a pool draws a token as often as the lists use it (MOHAMMAD, ALI, LIMITED stay common).
 * Han names are written without spaces: their "given" tokens are what follows a one-character
 * surname, and organisation names are split into a head and a tail (有限公司) to recombine.
 */
export interface NameTokens {
  given: Pools;
  surname: Pools;
  org: Pools;
}

const emptyPools = (): Pools => ({ latin: [], cyrillic: [], arabic: [], han: [] });

export function scriptOf(text: string): Script | undefined {
  for (const ch of text) {
    if (/\p{Script=Latin}/u.test(ch)) return 'latin';
    if (/\p{Script=Cyrillic}/u.test(ch)) return 'cyrillic';
    if (/\p{Script=Arabic}/u.test(ch)) return 'arabic';
    if (/\p{Script=Han}/u.test(ch)) return 'han';
  }
  return undefined;
}

const WORD = /^\p{L}[\p{L}\p{M}'’-]*\p{L}$/u;

function words(name: string): string[] {
  return name
    .split(/[\s,;()"“”«»/]+/)
    .map((w) => w.replace(/^[.'’-]+|[.'’-]+$/g, ''))
    .filter((w) => WORD.test(w));
}

/** Adds one name of a person or of an organisation to the pools. */
export function harvestName(tokens: NameTokens, full: string, person: boolean): void {
  const script = scriptOf(full);
  if (!script) return;
  if (script === 'han') {
    const han = [...full.replace(/[^\p{Script=Han}]/gu, '')];
    if (han.length < 2) return;
    if (person) {
      tokens.surname.han.push(han[0]!);
      tokens.given.han.push(han.slice(1).join(''));
    } else {
      const cut = Math.max(1, han.length - 4);
      tokens.org.han.push(han.slice(0, cut).join(''), han.slice(cut).join(''));
    }
    return;
  }
  if (!person) {
    tokens.org[script].push(...words(full).map((w) => w.toUpperCase()));
    return;
  }
  // 'SURNAME, Given Names' (OFAC and the lists that copy it); otherwise the surname comes last.
  const comma = full.indexOf(',');
  const surnames = comma > 0 ? words(full.slice(0, comma)) : words(full).slice(-1);
  const given = comma > 0 ? words(full.slice(comma + 1)) : words(full).slice(0, -1);
  tokens.surname[script].push(...surnames.map((w) => w.toUpperCase()));
  tokens.given[script].push(...given.map((w) => w.toUpperCase()));
}

/**
 * Tokens of every name in a folder of official list files (OFAC SDN and consolidated, UN, UK
 * OFSI, US CSL), read with the benches' own name loader. Original-script names (UN, OFSI) give the
 * Cyrillic, Arabic and Han pools.
 */
export function harvestListTokens(listsDir: string): NameTokens {
  const tokens: NameTokens = { given: emptyPools(), surname: emptyPools(), org: emptyPools() };
  for (const entity of loadListEntities(listsDir)) {
    const person = entity.kind === 'person';
    for (const name of entity.names) harvestName(tokens, name.full, person);
  }
  if (tokens.given.latin.length === 0 || tokens.surname.latin.length === 0 || tokens.org.latin.length === 0) {
    throw new Error(`no Latin-script name tokens in ${listsDir}: it must hold the official list files`);
  }
  return tokens;
}

/** How many tokens (and distinct tokens) each pool holds, for the run's log. */
export function describeTokens(tokens: NameTokens): string {
  const parts: string[] = [];
  for (const script of SCRIPTS) {
    const count = (pool: string[]) => `${pool.length}/${new Set(pool).size}`;
    parts.push(
      `${script}: given ${count(tokens.given[script])}, surnames ${count(tokens.surname[script])}, org ${count(tokens.org[script])}`,
    );
  }
  return `name tokens (occurrences/distinct) ${parts.join('; ')}`;
}
