import { clean } from './text.js';

// Country names as the lists write them, beyond the English names Intl knows. Keys are in the
// folded form `foldCountry` produces. Found by running every list through the parsers and
// listing what did not resolve.
const ALIASES: Readonly<Record<string, string>> = {
  'korea north': 'KP',
  'north korea': 'KP',
  'democratic peoples republic of korea': 'KP',
  dprk: 'KP',
  'korea south': 'KR',
  'republic of korea': 'KR',
  'south korea': 'KR',
  burma: 'MM',
  russia: 'RU',
  'russian federation': 'RU',
  iran: 'IR',
  'iran islamic republic of': 'IR',
  'islamic republic of iran': 'IR',
  syria: 'SY',
  'syrian arab republic': 'SY',
  palestinian: 'PS',
  palestine: 'PS',
  'occupied palestinian territory': 'PS',
  'state of palestine': 'PS',
  'west bank': 'PS',
  gaza: 'PS',
  'gaza strip': 'PS',
  'congo democratic republic of the': 'CD',
  'democratic republic of the congo': 'CD',
  'congo republic of the': 'CG',
  'republic of the congo': 'CG',
  congo: 'CG',
  'cote divoire': 'CI',
  'ivory coast': 'CI',
  'bahamas the': 'BS',
  'gambia the': 'GM',
  laos: 'LA',
  'lao peoples democratic republic': 'LA',
  vietnam: 'VN',
  'viet nam': 'VN',
  'united states': 'US',
  'united states of america': 'US',
  usa: 'US',
  'united kingdom': 'GB',
  'united kingdom of great britain and northern ireland': 'GB',
  uk: 'GB',
  'venezuela bolivarian republic of': 'VE',
  'bolivia plurinational state of': 'BO',
  'tanzania united republic of': 'TZ',
  'united republic of tanzania': 'TZ',
  'moldova republic of': 'MD',
  'republic of moldova': 'MD',
  'macedonia the former yugoslav republic of': 'MK',
  macedonia: 'MK',
  'north macedonia': 'MK',
  turkey: 'TR',
  turkiye: 'TR',
  czechia: 'CZ',
  'czech republic': 'CZ',
  'brunei darussalam': 'BN',
  'cabo verde': 'CV',
  'cape verde': 'CV',
  swaziland: 'SZ',
  eswatini: 'SZ',
  'micronesia federated states of': 'FM',
  'holy see': 'VA',
  'vatican city': 'VA',
  'hong kong': 'HK',
  'hong kong sar': 'HK',
  'hong kong sar china': 'HK',
  'china hong kong': 'HK',
  macau: 'MO',
  macao: 'MO',
  taiwan: 'TW',
  'taiwan province of china': 'TW',
  'bosnia herzegovina': 'BA',
  'bosnia and herzegovina': 'BA',
  'saint kitts and nevis': 'KN',
  'st kitts and nevis': 'KN',
  'saint vincent and the grenadines': 'VC',
  'st vincent and the grenadines': 'VC',
  'saint lucia': 'LC',
  'sao tome and principe': 'ST',
  'timor leste': 'TL',
  'east timor': 'TL',
  'the netherlands': 'NL',
  netherlands: 'NL',
  'united arab emirates': 'AE',
  uae: 'AE',
  kosovo: 'XK',
  'region crimea': 'UA',
  crimea: 'UA',
  'netherlands antilles': 'AN',
  'serbia and montenegro': 'CS',
  yugoslavia: 'YU',
  'soviet union': 'SU',
  ussr: 'SU',
  'former soviet union': 'SU',
  'sudan south': 'SS',
  'virgin islands british': 'VG',
  'british virgin islands': 'VG',
  'virgin islands us': 'VI',
  'man isle of': 'IM',
  'cote d ivoire': 'CI',
  'north macedonia the republic of': 'MK',
  'republic of north macedonia': 'MK',
  eritrean: 'ER',
  'congo democratic republic': 'CD',
  myanmar: 'MM',
  'china hong kong special administrative region': 'HK',
  'occupied palestinian territories': 'PS',
  russian: 'RU',
  britain: 'GB',
  'great britain': 'GB',
  german: 'DE',
  moldovan: 'MD',
};

/** Values that mean "no country known". */
const UNKNOWN = new Set(['00', 'unknown', 'undetermined', 'none identified', 'stateless']);

let byName: Map<string, string> | undefined;
/** Lists repeat the same few hundred country names; resolving each once keeps big lists fast. */
const resolved = new Map<string, string | undefined>();
const MAX_RESOLVED_ENTRIES = 10_000;

/** Lower case, no accents, '&' as 'and', punctuation and 'the ' prefixes dropped. */
export function foldCountry(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/['’`.]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .replace(/^the /, '');
}

function nameTable(): Map<string, string> {
  if (byName) return byName;
  const table = new Map<string, string>();
  const display = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  for (let a = 65; a <= 90; a++) {
    for (let b = 65; b <= 90; b++) {
      const code = String.fromCharCode(a, b);
      const name = display.of(code);
      if (name && name !== code) table.set(foldCountry(name), code);
    }
  }
  for (const [alias, code] of Object.entries(ALIASES)) table.set(alias, code);
  byName = table;
  return table;
}

/**
 * ISO 3166-1 alpha-2 code for a country name or code as a list writes it. A name that does not
 * resolve is returned cleaned rather than dropped: a screening result should still show it.
 * Placeholders for "unknown" ('00', 'UNKNOWN') give undefined.
 */
export function countryCode(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (resolved.has(value)) return resolved.get(value);
  const code = resolveCountry(value);
  if (resolved.size < MAX_RESOLVED_ENTRIES) resolved.set(value, code);
  return code;
}

function resolveCountry(value: string): string | undefined {
  const text = clean(value);
  if (!text || UNKNOWN.has(text.toLowerCase())) return undefined;
  if (/^[A-Z]{2}$/.test(text)) return text;
  const name = text.replace(/^region:\s*/i, '');
  const table = nameTable();
  // Notes in parentheses ("Iraq (previous address)") hide the name unless the parentheses are
  // part of it ("Congo (Democratic Republic)"), so the whole value is tried first.
  return table.get(foldCountry(name)) ?? table.get(foldCountry(name.replace(/\s*\(.*\)\s*$/, ''))) ?? name;
}

/** True when `countryCode` would resolve the value to an ISO code (used to measure coverage). */
export function isResolvedCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code);
}
