// The common entity model every official-list parser produces (docs/entity-model.md). Search and
// scoring only ever see this shape, never which list an entity came from. Fields a source lacks
// stay empty (arrays) or absent (optional fields).

export type EntityKind = 'person' | 'organization' | 'vessel' | 'aircraft' | 'unknown';

export type NameType = 'primary' | 'aka' | 'fka' | 'weak_aka' | 'original_script';

/**
 * The pieces of a name, when the source gives them separately. `family` is the surname as the
 * source marks it (OFAC's `SURNAME, Given`, the UK's Name 6, the EU's lastName); `middle` joins
 * whatever the source lists between the first given name and the surname.
 */
export interface NameParts {
  given?: string;
  middle?: string;
  family?: string;
}

export interface EntityName {
  /** The whole name in reading order, whitespace collapsed ("Ismail Abdul Salah HANIYA"). */
  full: string;
  parts?: NameParts;
  /** ISO 15924 code of the writing system ('Arab', 'Cyrl', 'Hani', ...); absent means Latin. */
  script?: string;
  type: NameType;
  /** The source's own language tag for the name, when it gives one (EU `nameLanguage`). */
  lang?: string;
}

/**
 * A date as precise as the source states it: 'YYYY-MM-DD', 'YYYY-MM' or 'YYYY'; a range of years
 * or dates as 'FROM/TO' (ISO 8601 interval form, e.g. '1953/1958'). Dates in other calendars are
 * converted to Gregorian when the source gives the conversion and left out otherwise (the `raw`
 * record keeps them). "circa" dates keep their stated value: matching applies its own tolerance.
 */
export type PartialDate = `${number}` | `${number}-${number}` | `${number}-${number}-${number}`;
export type BirthDate = PartialDate | `${PartialDate}/${PartialDate}`;

/**
 * Identifier kinds the parsers map the lists' many labels to. The source's own label is kept in
 * `EntityIdentifier.label`, so a kind that is too coarse never loses information.
 */
export type IdentifierType =
  | 'passport'
  | 'national_id'
  | 'tax_id'
  | 'registration_number'
  | 'lei'
  | 'swift_bic'
  | 'imo'
  | 'mmsi'
  | 'call_sign'
  | 'aircraft_serial'
  | 'aircraft_tail_number'
  | 'crypto_address'
  | 'isin'
  | 'duns'
  | 'email'
  | 'phone'
  | 'website'
  | 'other';

export interface EntityIdentifier {
  type: IdentifierType;
  value: string;
  /** ISO 3166-1 alpha-2 of the issuing country when it resolves, else the source's own name. */
  country?: string;
  /** The source's own label ("Cedula No.", "Digital Currency Address - XBT", "regnumber"). */
  label?: string;
}

export interface EntityAddress {
  /** The address on one line, parts joined by ', ' in the source's order. */
  full: string;
  city?: string;
  /** ISO 3166-1 alpha-2 when it resolves, else the source's own country name. */
  country?: string;
}

/** The source's own record as plain JSON (becomes `flag.details`). */
export type RawValue = string | number | boolean | null | RawValue[] | { [key: string]: RawValue };
export type RawRecord = { [key: string]: RawValue };

export type Gender = 'male' | 'female' | 'other';

/**
 * A public position a person holds or held (PEP data: an OpenSanctions `Occupancy` of a
 * `Position`). Every field is optional because the sources often know that a person held an
 * office, and when, without naming it.
 */
export interface HeldPosition {
  name?: string;
  /** Countries of the position, same codes as `ListEntity.countries`. */
  countries?: string[];
  start_date?: PartialDate;
  end_date?: PartialDate;
  /** The source's own status ('current', 'ended', 'unknown'). */
  status?: string;
}

export interface ListEntity {
  /** Source id, e.g. 'ofac_sdn', 'eu_fsf', 'us_csl' (every id: src/screening/source-ids.ts). */
  source: string;
  /** The list or programme family in upper snake case, e.g. 'SDN', 'EU_CONSOLIDATED'. */
  list: string;
  /** The list's own record id; unique within `source`. */
  source_id: string;
  kind: EntityKind;
  /** The first name is the primary name. */
  names: EntityName[];
  /** Sanctions programmes or regimes as the list writes them ('SDGT', 'TERR', 'Al-Qaida'). */
  programs: string[];
  /**
   * Countries linked to the entity (nationality, citizenship, address, registration, flag):
   * ISO 3166-1 alpha-2 where the source's name resolves, else the source's own name. No duplicates.
   */
  countries: string[];
  birth_dates: BirthDate[];
  identifiers: EntityIdentifier[];
  addresses: EntityAddress[];
  remarks?: string;
  /** Date of listing, 'YYYY-MM-DD'. */
  listed_on?: string;
  url?: string;
  raw: RawRecord;
  gender?: Gender;
  /** Nationalities and citizenships, same codes as `countries`. */
  nationalities?: string[];
  places_of_birth?: string[];
  /** Positions held, for PEP data (see `HeldPosition`). */
  positions?: HeldPosition[];
  /**
   * A watchlist provider's risk tags, as it writes them (OpenSanctions topics: 'sanction',
   * 'role.pep', 'crime', ...). The flag type is derived from them.
   */
  topics?: string[];
  /** The provider's own datasets the entry was aggregated from (OpenSanctions dataset names). */
  datasets?: string[];
}
