import {
  COUNTRIES,
  LEGAL_FORMS,
  POSITION_ROLES,
  PROFILE_MIX,
  PROFILES,
  type Profile,
  SANCTION_AUTHORITIES,
  SANCTION_DATASETS,
  type TargetSchema,
} from './collection-mix.js';
import type { NameTokens, Script } from './name-tokens.js';
import { typo } from './planted-targets.js';
import { hashUnit, mix32, type Random, randomFor } from './random.js';

/** One line of `entities.ftm.json`. */
export interface FtmLine {
  id: string;
  caption: string;
  schema: string;
  properties: Record<string, string[]>;
  datasets: string[];
  referents: string[];
  first_seen: string;
  last_seen: string;
  last_change: string;
  target: boolean;
}

/** A target with its adjacent entities, and which of them the export writes before the target. */
export interface Cluster {
  index: number;
  target: FtmLine;
  /** Adjacent entities written before the target, then after it (the loader must join either way). */
  before: FtmLine[];
  after: FtmLine[];
  profile: Profile;
  /** The shared Positions its Occupancies refer to (written by the Positions' home targets). */
  posts: number[];
}

export interface ExportShape {
  seed: number;
  /** Targets in version 0. */
  targets: number;
  /** Planted targets for recall in version 0. */
  planted: number;
  tokens: NameTokens;
}

/** The export's version 0 is dated here; version v is v days later. Fixed, so runs repeat. */
const BASE_TIME = Date.UTC(2026, 10, 1, 6, 0, 0);
const DAY = 86_400_000;
const EARLIEST = Date.UTC(2018, 0, 1);
/** A relation (Family, Ownership, a wallet's holder) points back at most this many targets. */
export const RELATION_WINDOW = 8;

export const versionTime = (version: number) => BASE_TIME + version * DAY;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The shape's derived constants: planted stride, positions pool, targets added per version. */
export class ShapeFacts {
  readonly plantedStride: number;
  readonly positions: number;
  readonly positionStride: number;
  /** Targets each delta adds, of which `newlySanctioned` are planted sanctioned targets. */
  readonly addedPerVersion: number;
  readonly newlySanctioned: number;

  constructor(readonly shape: ExportShape) {
    const n = Math.max(1, shape.targets);
    this.plantedStride = shape.planted > 0 ? Math.max(1, Math.floor(n / shape.planted)) : 0;
    this.positions = Math.max(1, Math.ceil(n / 12));
    this.positionStride = Math.max(1, Math.floor(n / this.positions));
    this.addedPerVersion = Math.max(2, Math.ceil(n * 0.001));
    this.newlySanctioned = Math.max(1, Math.ceil(this.addedPerVersion * 0.1));
  }

  /** The version that added target `index` (0 for the base export's targets). */
  addedIn(index: number): number {
    const { targets } = this.shape;
    return index < targets ? 0 : 1 + Math.floor((index - targets) / this.addedPerVersion);
  }

  /** How many target indices exist up to `version` (deleted ones included). */
  indicesAt(version: number): number {
    return this.shape.targets + version * this.addedPerVersion;
  }

  isNewlySanctioned(index: number): boolean {
    const { targets } = this.shape;
    return index >= targets && (index - targets) % this.addedPerVersion < this.newlySanctioned;
  }

  isPlanted(index: number): boolean {
    if (this.isNewlySanctioned(index)) return true;
    const stride = this.plantedStride;
    return (
      stride > 0 &&
      index < this.shape.targets &&
      index % stride === stride >> 1 &&
      Math.floor(index / stride) < this.shape.planted
    );
  }

  /** Whether the target writes a shared Position (it is never deleted, so the Position stays). */
  isPositionHome(index: number): boolean {
    return (
      index < this.shape.targets &&
      index % this.positionStride === 0 &&
      index / this.positionStride < this.positions
    );
  }

  /** What version `version` does to a target that exists before it. */
  changeAt(index: number, version: number): 'delete' | 'modify' | undefined {
    if (version <= this.addedIn(index)) return undefined;
    const u = hashUnit(this.shape.seed, index, version, 0xc4a96e);
    if (u < 0.0005 && !this.isPlanted(index) && !this.isPositionHome(index)) return 'delete';
    if (u < 0.0055) return 'modify';
    return undefined;
  }

  /** Whether the target exists in `version` (added by then and not deleted). */
  exists(index: number, version: number): boolean {
    if (index < 0 || index >= this.indicesAt(version)) return false;
    for (let v = this.addedIn(index) + 1; v <= version; v++)
      if (this.changeAt(index, v) === 'delete') return false;
    return true;
  }

  profileOf(index: number): Profile {
    if (this.isNewlySanctioned(index)) return PROFILES.find((p) => p.name === 'sanction')!;
    return PROFILE_MIX.at(hashUnit(this.shape.seed, index, 0x9f0f11e));
  }

  schemaOf(index: number): TargetSchema {
    const schema = this.profileOf(index).schemata.at(hashUnit(this.shape.seed, index, 0x5c3e3a));
    // Planted targets are screened by name: a wallet has none.
    return schema === 'CryptoWallet' && this.isPlanted(index) ? 'Company' : schema;
  }
}

const isOrg = (schema: string) => ['Organization', 'Company', 'LegalEntity', 'PublicBody'].includes(schema);

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const hex8 = (n: number) => (n >>> 0).toString(16).padStart(8, '0');

function randomHex(random: Random, chars: number): string {
  let out = '';
  while (out.length < chars) out += hex8(random.bits());
  return out.slice(0, chars);
}

function digits(random: Random, count: number): string {
  let out = String(1 + random.int(9));
  while (out.length < count) out += String(random.int(10));
  return out;
}

/** Builds one target's cluster at one version, drawing from streams of its own. */
export class ClusterBuilder {
  constructor(private readonly facts: ShapeFacts) {}

  /** The id of target `index`: unique, since `mix32` is a bijection. */
  targetId(index: number): string {
    const key = mix32(index ^ mix32(this.facts.shape.seed));
    const profile = this.facts.profileOf(index);
    if (profile.ids === 'wikidata') return `Q${key + 1}`;
    if (profile.ids === 'nk') {
      const random = randomFor(this.facts.shape.seed, index, 0x11);
      let id = 'NK-';
      for (let k = key, i = 0; i < 6; i++, k = Math.floor(k / 58)) id += BASE58[k % 58];
      for (let i = 0; i < 16; i++) id += BASE58[random.int(58)];
      return id;
    }
    const dataset = profile.datasets.at(hashUnit(this.facts.shape.seed, index, 0xd5));
    return `${dataset.split('_').slice(0, 2).join('-')}-${hex8(key)}${randomHex(randomFor(this.facts.shape.seed, index, 0x12), 32)}`;
  }

  /** The id of an adjacent entity: its target's key, then a slot per entity of the cluster. */
  private adjacentId(index: number, prefix: string, slot: number, random: Random): string {
    const key = mix32(index ^ mix32(this.facts.shape.seed));
    return `${prefix}-${hex8(key)}${slot.toString(16).padStart(2, '0')}${randomHex(random, 30)}`;
  }

  positionId(position: number): string {
    const key = mix32(position ^ mix32(this.facts.shape.seed ^ 0x5a5a5a5a));
    return `pos-${hex8(key)}${randomHex(randomFor(this.facts.shape.seed, position, 0x13), 32)}`;
  }

  /** The shared Position `position`: the same line whichever target writes or nests it. */
  positionLine(position: number, version: number): FtmLine {
    const random = randomFor(this.facts.shape.seed, position, 0x14);
    const country = COUNTRIES.pick(random);
    const name = positionName(random, country);
    const firstSeen = iso(EARLIEST + random.next() * (BASE_TIME - EARLIEST));
    return {
      id: this.positionId(position),
      caption: name,
      schema: 'Position',
      properties: { name: [name], country: [country] },
      referents: [],
      datasets: [PEP_DATASET_OF_POSITIONS],
      first_seen: firstSeen,
      last_seen: iso(versionTime(version)),
      last_change: firstSeen,
      target: false,
    };
  }

  build(index: number, version: number): Cluster {
    const facts = this.facts;
    const { seed, tokens } = facts.shape;
    const random = randomFor(seed, index, 0);
    const profile = facts.profileOf(index);
    const schema = facts.schemaOf(index);
    const planted = facts.isPlanted(index);
    const id = this.targetId(index);
    const now = versionTime(version);
    const created = versionTime(facts.addedIn(index));
    const firstSeen = facts.addedIn(index) > 0 ? created : EARLIEST + random.next() * (created - EARLIEST);
    const lastChange = firstSeen + random.next() * (created - firstSeen);
    // In the order of OpenSanctions' lines.
    const stamp = (
      line: Omit<FtmLine, 'first_seen' | 'last_seen' | 'last_change' | 'referents'>,
    ): FtmLine => ({
      id: line.id,
      caption: line.caption,
      schema: line.schema,
      properties: line.properties,
      referents: [],
      datasets: line.datasets,
      first_seen: iso(firstSeen),
      last_seen: iso(now - random.int(2) * DAY),
      last_change: iso(lastChange),
      target: line.target,
    });

    const datasets = [profile.datasets.pick(random)];
    const extra = Math.floor(random.next() * profile.extraDatasets);
    for (let k = 0; k < extra; k++) {
      const dataset = profile.datasets.pick(random);
      if (!datasets.includes(dataset)) datasets.push(dataset);
    }
    if (isOrg(schema) && random.chance(0.1)) datasets.push(random.chance(0.6) ? 'ext_ru_egrul' : 'ext_gleif');
    const topics = [...profile.topics.pick(random)];
    const country = COUNTRIES.pick(random);
    const properties: Record<string, string[]> = {};
    const names = new NameMaker(tokens, random, planted ? 'latin' : undefined);
    // How many more spellings of its name a target has: sanctioned ones many (each list writes
    // its own), PEPs from Wikidata a few.
    const spellings =
      profile.name === 'sanction'
        ? 2 + random.int(7)
        : profile.name === 'pep' || profile.name === 'rca'
          ? random.chance(0.5)
            ? 1 + random.int(4)
            : 0
          : random.chance(0.3)
            ? 1 + random.int(2)
            : 0;
    if (schema === 'Person') names.person(properties, spellings);
    else if (schema === 'Vessel') names.vessel(properties);
    else if (schema === 'Airplane') names.airplane(properties);
    else if (schema !== 'CryptoWallet')
      names.organization(properties, schema === 'PublicBody' ? country : undefined, spellings);
    if (random.chance(0.15)) properties.summary = [NOTES[random.int(NOTES.length)]!];
    this.facts_(properties, schema, country, random);
    properties.topics = topics;
    // What most OpenSanctions lines carry besides: the source's page, dates, notes, the source ids merged.
    properties.sourceUrl = [`https://sources.example.org/${datasets[0]}/${index}`];
    if (random.chance(0.5)) properties.createdAt = [day(firstSeen)];
    if (random.chance(0.3)) properties.modifiedAt = [day(lastChange)];
    if (random.chance(0.4)) properties.notes = [NOTES[random.int(NOTES.length)]!];
    if (
      schema !== 'CryptoWallet' &&
      random.chance(isOrg(schema) || profile.name === 'sanction' ? 0.5 : 0.15)
    ) {
      const city = titleCase(random.pick(tokens.surname.latin));
      properties.address = [
        `${titleCase(random.pick(tokens.org.latin))} street ${1 + random.int(150)}, ${city}`,
      ];
    }
    if (profile.ids === 'wikidata') properties.wikidataId = [id];
    const referents =
      profile.ids === 'nk' ? datasets.map((d) => `${d.split('_')[0]}-${digits(random, 5)}`) : [];

    const target = stamp({
      id,
      caption: properties.name?.[0] ?? '',
      schema,
      properties,
      datasets,
      target: true,
    });
    target.referents = referents;
    const adjacent: FtmLine[] = [];
    const posts: number[] = [];
    const adj = (
      prefix: string,
      slot: number,
      schemaName: string,
      caption: string,
      props: Record<string, string[]>,
    ) =>
      adjacent.push(
        stamp({
          id: this.adjacentId(index, prefix, slot, random),
          caption,
          schema: schemaName,
          properties: props,
          datasets: [datasets[0]!],
          target: false,
        }),
      );
    const prefix = id.startsWith('Q')
      ? 'wd'
      : id.startsWith('NK-')
        ? 'ofac'
        : id.split('-').slice(0, 2).join('-');

    // Sanctions (debarments and export controls are Sanction entities in FtM too).
    const sanctions =
      profile.name === 'sanction'
        ? 1 + random.int(4)
        : ['debarment', 'export_control'].includes(profile.name) || random.chance(0.02)
          ? 1
          : 0;
    for (let k = 0; k < sanctions; k++) {
      const dataset = profile.name === 'sanction' ? (datasets[k] ?? datasets[0]!) : datasets[0]!;
      adjacent.push(this.sanction(index, id, dataset, 0x10 + k, random, stamp));
    }
    // Positions held (PEPs), each an Occupancy of a shared Position.
    if (profile.name === 'pep' || topics.includes('role.pep')) {
      const held = 1 + (random.chance(0.35) ? 1 : 0) + (random.chance(0.1) ? 1 : 0);
      for (let k = 0; k < held; k++) {
        const position = random.int(facts.positions);
        posts.push(position);
        const start = firstSeen - random.int(3000) * DAY;
        const props: Record<string, string[]> = {
          holder: [id],
          post: [this.positionId(position)],
          startDate: [day(start)],
        };
        if (random.chance(0.4)) {
          props.endDate = [day(start + random.int(2000) * DAY)];
          props.status = ['ended'];
        } else props.status = ['current'];
        adj(prefix, 0x20 + k, 'Occupancy', 'Occupancy', props);
      }
      if (!properties.position)
        properties.position = Array.from({ length: 1 + random.int(3) }, () => positionName(random, country));
      if (random.chance(0.3))
        properties.education = [`University of ${titleCase(random.pick(tokens.surname.latin))}`];
    }
    // A Position is written by the target at its home index, before or after its holders.
    if (facts.isPositionHome(index)) adjacent.push(this.positionLine(index / facts.positionStride, version));
    // Addresses, referred to by the target's addressEntity.
    const addressShare = profile.name === 'pep' || profile.name === 'rca' ? 0.05 : isOrg(schema) ? 0.7 : 0.35;
    if (schema !== 'CryptoWallet' && random.chance(addressShare)) {
      const street = `${1 + random.int(200)} ${titleCase(random.pick(tokens.surname.latin))} st.`;
      const city = titleCase(random.pick(tokens.surname.latin));
      const full = `${street}, ${city}, ${digits(random, 6)}, ${country.toUpperCase()}`;
      const before = adjacent.length;
      adj('addr', 0x30, 'Address', full, {
        full: [full],
        street: [street],
        city: [city],
        postalCode: [full.split(', ')[2]!],
        country: [country],
      });
      properties.addressEntity = [adjacent[before]!.id];
    }
    // Identity documents.
    if (
      schema === 'Person' &&
      random.chance(profile.name === 'sanction' ? 0.5 : profile.name === 'crime' ? 0.3 : 0.03)
    ) {
      const passport = random.chance(0.5);
      adj(prefix, 0x40, passport ? 'Passport' : 'Identification', passport ? 'Passport' : 'Identification', {
        holder: [id],
        number: [`${String.fromCharCode(65 + random.int(26))}${digits(random, 8)}`],
        type: [passport ? 'Passport' : 'National ID'],
        country: [country],
      });
    }
    this.relations(index, version, id, schema, profile, random, adj, prefix, properties);

    for (let v = facts.addedIn(index) + 1; v <= version; v++) {
      if (facts.changeAt(index, v) === 'modify') this.modify(index, v, target, adjacent, stamp);
    }
    const before: FtmLine[] = [];
    const after: FtmLine[] = [];
    adjacent.forEach((line, k) => {
      (hashUnit(seed, index, k, 0xbef0) < 0.35 ? before : after).push(line);
    });
    return { index, target, before, after, profile, posts };
  }

  private facts_(
    properties: Record<string, string[]>,
    schema: TargetSchema,
    country: string,
    random: Random,
  ): void {
    if (schema === 'Person') {
      if (random.chance(0.7)) {
        const year = 1930 + random.int(75);
        properties.birthDate = [
          random.chance(0.12)
            ? String(year)
            : `${year}-${pad(1 + random.int(12))}-${pad(1 + random.int(28))}`,
        ];
      }
      if (random.chance(0.6)) properties.nationality = [country];
      if (random.chance(0.4)) properties.country = [country];
      properties.gender = [random.chance(0.75) ? 'male' : 'female'];
      if (random.chance(0.35))
        properties.birthPlace = [
          `${titleCase(random.pick(this.facts.shape.tokens.surname.latin))}, ${country.toUpperCase()}`,
        ];
      if (random.chance(0.4)) properties.description = [random.pick(DESCRIPTIONS)];
      if (random.chance(0.1)) properties.idNumber = [digits(random, 10)];
      if (random.chance(0.04)) properties.passportNumber = [digits(random, 9)];
      if (country === 'ru' && random.chance(0.4)) properties.innCode = [digits(random, 12)];
      if (random.chance(0.03)) properties.taxNumber = [digits(random, 11)];
    } else if (schema === 'Vessel') {
      properties.imoNumber = [`IMO${digits(random, 7)}`];
      if (random.chance(0.6)) properties.mmsi = [digits(random, 9)];
      properties.flag = [country];
      if (random.chance(0.4))
        properties.callSign = [`${String.fromCharCode(65 + random.int(26))}${digits(random, 4)}`];
    } else if (schema === 'Airplane') {
      properties.serialNumber = [digits(random, 5)];
      properties.country = [country];
    } else if (schema === 'CryptoWallet') {
      const bitcoin = random.chance(0.6);
      const key = bitcoin ? `bc1q${randomHex(random, 38)}` : `0x${randomHex(random, 40)}`;
      properties.publicKey = [key];
      properties.currency = [bitcoin ? 'BTC' : 'ETH'];
    } else {
      properties.country = [country];
      if (schema !== 'PublicBody') properties.jurisdiction = [country];
      if (random.chance(0.6)) properties.registrationNumber = [digits(random, 8 + random.int(5))];
      if (country === 'ru' && random.chance(0.8)) {
        properties.innCode = [digits(random, 10)];
        properties.ogrnCode = [digits(random, 13)];
      }
      if (random.chance(0.08))
        properties.leiCode = [`${randomHex(random, 18).toUpperCase()}${pad(random.int(100))}`];
      if (random.chance(0.1)) properties.taxNumber = [digits(random, 10)];
      if (random.chance(0.2))
        properties.incorporationDate = [
          `${1960 + random.int(64)}-${pad(1 + random.int(12))}-${pad(1 + random.int(28))}`,
        ];
    }
  }

  private sanction(
    index: number,
    entityId: string,
    dataset: string,
    slot: number,
    random: Random,
    stamp: (line: Omit<FtmLine, 'first_seen' | 'last_seen' | 'last_change' | 'referents'>) => FtmLine,
  ): FtmLine {
    const [authority, country, programs] = SANCTION_AUTHORITIES[dataset] ?? [
      'Debarment authority',
      'us',
      ['Exclusion'],
    ];
    const program = random.pick(programs);
    const start = `${2014 + random.int(12)}-${pad(1 + random.int(12))}-${pad(1 + random.int(28))}`;
    const properties: Record<string, string[]> = {
      entity: [entityId],
      authority: [authority],
      program: [program],
      country: [country],
      startDate: [start],
    };
    if (random.chance(0.5)) properties.listingDate = [start];
    if (random.chance(0.4))
      properties.programId = [
        `${country.toUpperCase()}-${program.replace(/\W+/g, '').slice(0, 8).toUpperCase()}`,
      ];
    if (random.chance(0.3)) properties.provisions = ['Asset freeze'];
    if (random.chance(0.5)) properties.reason = [NOTES[random.int(NOTES.length)]!];
    properties.sourceUrl = [`https://sources.example.org/${dataset}/sanctions`];
    return stamp({
      id: this.adjacentId(index, dataset.split('_').slice(0, 2).join('-'), slot, random),
      caption: program,
      schema: 'Sanction',
      properties,
      datasets: [dataset],
      target: false,
    });
  }

  /** Family, associates, ownership and a wallet's holder: links to one of the targets just before. */
  private relations(
    index: number,
    version: number,
    id: string,
    schema: TargetSchema,
    profile: Profile,
    random: Random,
    adj: (
      prefix: string,
      slot: number,
      schema: string,
      caption: string,
      props: Record<string, string[]>,
    ) => void,
    prefix: string,
    properties: Record<string, string[]>,
  ): void {
    const share =
      profile.name === 'rca'
        ? 1
        : schema === 'CryptoWallet'
          ? 0.8
          : profile.name === 'pep'
            ? 0.25
            : isOrg(schema)
              ? 0.35
              : 0.15;
    if (!random.chance(share)) return;
    const other = index - 1 - random.int(RELATION_WINDOW);
    // Drawn whether or not it is used, so that the rest of the cluster does not depend on it.
    const kind = random.next();
    if (other < 0 || !this.facts.exists(other, version)) return;
    const otherSchema = this.facts.schemaOf(other);
    const otherId = this.targetId(other);
    if (schema === 'CryptoWallet') {
      if (otherSchema === 'Person' || isOrg(otherSchema)) properties.holder = [otherId];
    } else if (schema === 'Person' && otherSchema === 'Person') {
      const family = profile.name === 'rca' || profile.name === 'pep' ? kind < 0.8 : kind < 0.3;
      const relationship = family
        ? ['spouse', 'child', 'sibling', 'parent'][Math.floor(kind * 40) % 4]!
        : 'associate';
      adj(prefix, 0x50, family ? 'Family' : 'Associate', family ? 'Family' : 'Associate', {
        person: [id],
        [family ? 'relative' : 'associate']: [otherId],
        relationship: [relationship],
      });
    } else if (
      isOrg(schema) &&
      otherSchema !== 'Vessel' &&
      otherSchema !== 'Airplane' &&
      otherSchema !== 'CryptoWallet'
    ) {
      adj(prefix, 0x51, 'Ownership', 'Ownership', {
        owner: [otherId],
        asset: [id],
        percentage: [String(5 + Math.floor(kind * 95))],
      });
    }
  }

  /** What version `version` changes in a target: a new alias, and for some a new sanction. */
  private modify(
    index: number,
    version: number,
    target: FtmLine,
    adjacent: FtmLine[],
    stamp: (line: Omit<FtmLine, 'first_seen' | 'last_seen' | 'last_change' | 'referents'>) => FtmLine,
  ): void {
    const random = randomFor(this.facts.shape.seed, index, version, 0x3d);
    const props = target.properties;
    const scratch: Record<string, string[]> = {};
    const names = new NameMaker(this.facts.shape.tokens, random, 'latin');
    if (target.schema === 'Person') names.person(scratch);
    else if (target.schema !== 'CryptoWallet') names.organization(scratch, undefined);
    if (scratch.name) props.alias = [...(props.alias ?? []), scratch.name[0]!];
    const changed = iso(versionTime(version));
    target.last_change = changed;
    const sanctioned = random.chance(0.3) || (this.facts.isPlanted(index) && random.chance(0.5));
    if (sanctioned && !props.topics?.includes('sanction')) {
      props.topics = [...(props.topics ?? []), 'sanction'];
      const dataset = SANCTION_DATASETS.pick(random);
      if (!target.datasets.includes(dataset)) target.datasets.push(dataset);
      const line = this.sanction(index, target.id, dataset, 0x80 + (version % 128), random, stamp);
      line.first_seen = changed;
      line.last_change = changed;
      adjacent.push(line);
    }
  }
}

const PEP_DATASET_OF_POSITIONS = 'wd_peps';
const DESCRIPTIONS = [
  'politician',
  'businessperson',
  'lawyer',
  'military officer',
  'diplomat',
  'civil servant',
  'judge',
];
/** Free text of the length the real notes and reasons have (synthetic sentences). */
const NOTES = [
  'Involved in activities that undermine the territorial integrity, sovereignty and independence of a state.',
  'Member of the board of a company operating in a sector of strategic significance to the government.',
  'Provides material support to a designated organisation; acts on behalf of its leadership.',
  'Excluded from procurement for fraudulent practices in a publicly funded contract.',
  'Subject of an arrest warrant for fraud on a large scale; whereabouts unknown.',
  'Holds a senior position in the regional administration since its reorganisation.',
  'Family member of a politically exposed person.',
];
const pad = (n: number) => String(n).padStart(2, '0');

export function titleCase(word: string): string {
  return word
    .toLowerCase()
    .replace(/(^|[\s'’-])(\p{L})/gu, (_, sep: string, letter: string) => sep + letter.toUpperCase());
}

function positionName(random: Random, country: string): string {
  return `${random.pick(POSITION_ROLES)} (${country.toUpperCase()})`;
}

/** Names recombined from the lists' tokens, in the scripts the pools hold. */
class NameMaker {
  constructor(
    private readonly tokens: NameTokens,
    private readonly random: Random,
    private readonly forced: Script | undefined,
  ) {}

  private script(pools: Record<Script, string[]>): Script {
    if (this.forced) return this.forced;
    const u = this.random.next();
    const script: Script = u < 0.9 ? 'latin' : u < 0.94 ? 'cyrillic' : u < 0.98 ? 'arabic' : 'han';
    return pools[script].length >= 5 ? script : 'latin';
  }

  private personName(script: Script): { full: string; given: string; surname: string; middle?: string } {
    const { random, tokens } = this;
    const given = random.pick(tokens.given[script]);
    const surname = random.pick(tokens.surname[script]);
    if (script === 'han') return { full: surname + given, given, surname };
    const middle = random.chance(0.3) ? random.pick(tokens.given[script]) : undefined;
    const g = titleCase(given);
    const m = middle ? titleCase(middle) : undefined;
    const s = random.chance(0.35) ? surname : titleCase(surname);
    return {
      full: [g, m, s].filter(Boolean).join(' '),
      given: g,
      surname: titleCase(surname),
      ...(m && { middle: m }),
    };
  }

  person(props: Record<string, string[]>, spellings = 0): void {
    const { random, tokens } = this;
    const script = this.script(tokens.surname);
    const name = this.personName(script);
    props.name = [name.full];
    if (random.chance(0.7)) {
      props.firstName = [name.given];
      props.lastName = [name.surname];
      if (name.middle) props.middleName = [name.middle];
    }
    const aliases: string[] = [];
    if (script !== 'han' && random.chance(0.2))
      aliases.push(`${name.surname.toUpperCase()}, ${[name.given, name.middle].filter(Boolean).join(' ')}`);
    if (random.chance(0.25)) aliases.push(this.personName(script).full);
    for (let k = 0; k < spellings && script !== 'han'; k++) {
      const u = random.next();
      const given = u < 0.3 ? titleCase(random.pick(tokens.given[script])) : name.given;
      const spelled = u < 0.3 ? given : typo(given, random.next());
      const written = u < 0.6 ? `${spelled} ${name.surname}` : `${name.surname.toUpperCase()} ${spelled}`;
      if (!aliases.includes(written) && written !== name.full) aliases.push(written);
    }
    // Names in another script, as the lists' original-script names.
    if (script === 'latin' && !this.forced) {
      for (const [other, share] of [
        ['cyrillic', 0.12],
        ['arabic', 0.06],
        ['han', 0.01],
      ] as const) {
        if (tokens.surname[other].length >= 5 && random.chance(share))
          props.name.push(this.personName(other).full);
      }
    }
    if (aliases.length > 0) props.alias = aliases;
    if (random.chance(0.05)) props.weakAlias = [titleCase(random.pick(tokens.given.latin))];
    if (random.chance(0.03))
      props.previousName = [`${name.given} ${titleCase(random.pick(tokens.surname[script]))}`];
  }

  private orgName(script: Script): string {
    const { random, tokens } = this;
    const pool = tokens.org[script];
    if (script === 'han') return random.pick(pool) + random.pick(pool);
    const words = Array.from({ length: 1 + random.int(3) }, () => random.pick(pool));
    if (script === 'latin' && random.chance(0.3)) words.push(random.pick(LEGAL_FORMS));
    const upper = random.chance(0.5);
    return words.map((word) => (upper ? word : titleCase(word))).join(' ');
  }

  organization(props: Record<string, string[]>, country: string | undefined, spellings = 0): void {
    const { random, tokens } = this;
    const script = this.script(tokens.org);
    const name = country
      ? `Ministry of ${titleCase(random.pick(tokens.org.latin))} (${country.toUpperCase()})`
      : this.orgName(script);
    props.name = [name];
    if (script === 'latin' && !this.forced && tokens.org.cyrillic.length >= 5 && random.chance(0.06))
      props.name.push(this.orgName('cyrillic'));
    const aliases = random.chance(0.2) ? [this.orgName(script)] : [];
    for (let k = 0; k < spellings; k++) {
      const written = `${random.pick(LEGAL_FORMS)} ${name.replace(/^(LLC|LTD|JSC|OOO|AO) /, '')}`;
      if (!aliases.includes(written)) aliases.push(written);
    }
    if (aliases.length > 0) props.alias = aliases;
    if (random.chance(0.05)) props.previousName = [this.orgName(script)];
    if (random.chance(0.03)) props.weakAlias = [name.split(' ')[0]!];
  }

  vessel(props: Record<string, string[]>): void {
    const { random, tokens } = this;
    props.name = [Array.from({ length: 1 + random.int(2) }, () => random.pick(tokens.org.latin)).join(' ')];
    if (random.chance(0.3)) props.previousName = [random.pick(tokens.org.latin)];
  }

  airplane(props: Record<string, string[]>): void {
    const { random } = this;
    const letters = Array.from({ length: 3 }, () => String.fromCharCode(65 + random.int(26))).join('');
    props.name = [`${random.pick(['EP', 'RA', 'YK', 'UP', 'P4'])}-${letters}`];
    props.model = [random.pick(['Boeing 747-200', 'Airbus A320', 'Ilyushin Il-76', 'Tupolev Tu-204'])];
  }
}
