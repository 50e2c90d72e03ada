import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SETTINGS } from '../../../src/config.js';
import { locateList } from '../../../src/sources/lists/list-location.js';
import { LIST_REGISTRY, parsersOf, registeredList } from '../../../src/sources/lists/list-registry.js';
import { LISTS_DIR } from './mirror.js';

const entry = (id: string) => registeredList(id)!;

describe('where list files are read from', () => {
  it('a mirror folder matches official names ignoring case and a .gz suffix', async () => {
    const sdn = await locateList(entry('ofac_sdn'), parsersOf('ofac_sdn'), {
      override: undefined,
      listsDir: LISTS_DIR,
    });
    expect(sdn.files.map((f) => path.basename(new URL(f.url).pathname))).toEqual([
      'sdn.csv',
      'alt.csv',
      'add.csv',
      'sdn_comments.csv',
    ]);
    const ofsi = await locateList(entry('uk_ofsi'), parsersOf('uk_ofsi'), {
      override: undefined,
      listsDir: LISTS_DIR,
    });
    expect(ofsi.files[0]?.url).toMatch(/ConList\.csv\.gz$/);
  });

  it('a mirror prefers the first format whose required files are all present', async () => {
    const cons = await locateList(entry('ofac_cons'), parsersOf('ofac_cons'), {
      override: undefined,
      listsDir: LISTS_DIR,
    });
    expect(cons.parser.format).toBe('ofac_legacy_csv');
  });

  it('a mirror without the files of a list names what it looked for', async () => {
    await expect(
      locateList(entry('un_sc'), parsersOf('un_sc'), {
        override: undefined,
        listsDir: path.dirname(LISTS_DIR),
      }),
    ).rejects.toThrow(/un_sc: .* holds none of consolidated\.xml/);
  });

  it('an override pointing at CONS_ENHANCED.ZIP selects the Enhanced XML format', async () => {
    const url = pathToFileURL(path.join(LISTS_DIR, 'CONS_ENHANCED.ZIP')).href;
    const cons = await locateList(entry('ofac_cons'), parsersOf('ofac_cons'), {
      override: url,
      listsDir: LISTS_DIR,
    });
    expect(cons.parser.format).toBe('ofac_enhanced_xml');
    expect(cons.files).toEqual([{ name: 'CONS_ENHANCED.ZIP', url, required: true }]);
  });

  it('an http override of a multi-file list reads the other files beside the main one', async () => {
    const sdn = await locateList(entry('ofac_sdn'), parsersOf('ofac_sdn'), {
      override: 'http://127.0.0.1:1/mirror/SDN.CSV',
      listsDir: undefined,
    });
    expect(sdn.files.map((f) => f.url)).toEqual([
      'http://127.0.0.1:1/mirror/SDN.CSV',
      'http://127.0.0.1:1/mirror/ALT.CSV',
      'http://127.0.0.1:1/mirror/ADD.CSV',
      'http://127.0.0.1:1/mirror/SDN_COMMENTS.CSV',
    ]);
  });

  it('without override or mirror every file comes from its official address', async () => {
    for (const list of LIST_REGISTRY) {
      const located = await locateList(list, parsersOf(list.id), {
        override: undefined,
        listsDir: undefined,
      });
      for (const file of located.files) expect(file.url, `${list.id} ${file.name}`).toMatch(/^https:\/\//);
    }
  });
});

describe('list settings', () => {
  it('every list is enabled by default except OFSI, and LISTS_ENABLED takes all, none or ids', () => {
    expect(loadConfig({}).listsEnabled).toEqual([
      'ofac_sdn',
      'ofac_cons',
      'un_sc',
      'eu_fsf',
      'uk_fcdo',
      'us_csl',
    ]);
    expect(loadConfig({ LISTS_ENABLED: 'none' }).listsEnabled).toEqual([]);
    expect(loadConfig({ LISTS_ENABLED: 'all' }).listsEnabled).toHaveLength(7);
    expect(loadConfig({ LISTS_ENABLED: ' UN_SC, uk_fcdo ' }).listsEnabled).toEqual(['un_sc', 'uk_fcdo']);
    expect(LIST_REGISTRY.filter((e) => e.enabledByDefault).map((e) => e.id)).toEqual(
      loadConfig({}).listsEnabled,
    );
  });

  it('a bad list setting stops start-up naming the variable', () => {
    expect(() => loadConfig({ LISTS_ENABLED: 'un_sc,ofac' })).toThrow(ConfigError);
    expect(() => loadConfig({ LISTS_ENABLED: 'un_sc,ofac' })).toThrow(
      /LISTS_ENABLED names unknown lists ofac/,
    );
    expect(() => loadConfig({ LIST_URL_UN_SC: 'ftp://x/y.xml' })).toThrow(/LIST_URL_UN_SC must use one of/);
    expect(() => loadConfig({ LISTS_REFRESH_INTERVAL_MINUTES: '-1' })).toThrow(
      /LISTS_REFRESH_INTERVAL_MINUTES/,
    );
  });

  it('each list has a URL override setting under the name its registry entry gives', () => {
    const variables = SETTINGS.map((s) => s.variable as string);
    for (const list of LIST_REGISTRY) {
      expect(variables).toContain(list.url.variable);
      expect(loadConfig({ [list.url.variable]: 'https://mirror.example/x' })[list.url.key]).toBe(
        'https://mirror.example/x',
      );
    }
  });
});
