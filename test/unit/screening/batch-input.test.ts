import { describe, expect, it } from 'vitest';
import { PLANS } from '../../../src/accounts/plans.js';
import { ServiceError } from '../../../src/errors.js';
import { batchResultsCsv } from '../../../src/screening/batches/batch-csv.js';
import { checkBatchItems, submissionFromCsv } from '../../../src/screening/batches/batch-input.js';
import type { Source } from '../../../src/sources/source.js';

const TODAY = '2026-11-27';

const un = { id: 'un_sc', kind: 'direct_feed' } as Source;
const refusal = async (run: () => Promise<unknown>): Promise<ServiceError> => {
  try {
    await run();
  } catch (error) {
    if (error instanceof ServiceError) return error;
  }
  throw new Error('expected a ServiceError');
};

/** A CSV batch read and checked, as a submission is. */
const checkCsv = async (csv: string) =>
  checkBatchItems(await submissionFromCsv(csv), PLANS.professional, [un], TODAY);

describe('batch input', () => {
  it('reads CSV with a BOM, quoted cells and columns in any order, into the JSON form', async () => {
    const csv = '\uFEFFreference,Query,type\r\nr1,"Doe, John",person\r\nr2,ACME LTD,\r\n\r\n';
    expect((await submissionFromCsv(csv)).items).toEqual([
      { query: 'Doe, John', type: 'person', reference: 'r1' },
      { query: 'ACME LTD', reference: 'r2' },
    ]);
  });

  it('reads the optional birth date, countries and identifiers columns of a CSV batch', async () => {
    const csv =
      'query,type,date_of_birth,countries,identifiers\r\n' +
      'Saddam Hussein,person,1937-04-28,IQ;jo,passport:N123456;national_id:77-88\r\n' +
      ',vessel,,,imo:9187629\r\n' +
      'Plain Name,,,,\r\n';
    expect((await submissionFromCsv(csv)).items).toEqual([
      {
        query: 'Saddam Hussein',
        type: 'person',
        date_of_birth: '1937-04-28',
        countries: ['IQ', 'jo'],
        identifiers: [
          { type: 'passport', value: 'N123456' },
          { type: 'national_id', value: '77-88' },
        ],
      },
      { type: 'vessel', identifiers: [{ type: 'imo', value: '9187629' }] },
      { query: 'Plain Name' },
    ]);
    const bad = await refusal(() => checkCsv('query,identifiers\r\nA Name,shoe:42\r\nB Name,no-colon\r\n'));
    expect(bad.fieldErrors.map((e) => e.detail)).toEqual([
      'line 2: unknown identifier types: shoe',
      'line 3: each identifier is written type:value',
    ]);
  });

  it('refuses a row whose identifier cannot be one of its kind, at that identifier, with its line', async () => {
    const bad = await refusal(() =>
      checkCsv(
        'query,type,identifiers\r\nA Ship,vessel,imo:IMO 9187629\r\nB Ship,vessel,mmsi:1;imo:9187628\r\n',
      ),
    );
    expect(bad.fieldErrors).toEqual([
      { pointer: '/items/1/identifiers/0/value', detail: 'line 3: must be an MMSI: 9 digits (got 1 digit)' },
      {
        pointer: '/items/1/identifiers/1/value',
        detail: "line 3: is not a ship's IMO number: its last digit is not the check digit of the first six",
      },
    ]);
  });

  it('refuses CSV without a query column, with unknown columns, or with bad rows, naming each line', async () => {
    expect((await refusal(() => submissionFromCsv('type\r\nperson\r\n'))).fieldErrors[0]!.detail).toBe(
      'no query column',
    );
    expect(
      (await refusal(() => submissionFromCsv('query,colour\r\nJohn,red\r\n'))).fieldErrors[0]!.detail,
    ).toBe('unknown columns: colour');
    const bad = await refusal(() => checkCsv('query,type\r\nA Name,person\r\nB Name,ship\r\nx,person\r\n'));
    expect(bad.fieldErrors).toEqual([
      {
        pointer: '/items/1/type',
        detail: 'line 3: must be one of person, organization, vessel, aircraft, entity',
      },
      { pointer: '/items/2/query', detail: expect.stringMatching(/^line 4: must be/) },
    ]);
    // The facts are checked later, as a single screening's: each error still names its line.
    const facts = await refusal(() =>
      checkCsv('query,date_of_birth,countries\r\nA Name,1990-13-01,FR\r\nB Name,1990,XX\r\n'),
    );
    expect(facts.fieldErrors.map((e) => [e.pointer, e.detail.split(':')[0]])).toEqual([
      ['/items/0/date_of_birth', 'line 2'],
      ['/items/1/countries/0', 'line 3'],
    ]);
    expect((await refusal(() => submissionFromCsv('query\r\n"unclosed\r\n'))).code).toBe('validation-failed');
  });

  it('refuses a NUL character in any cell, naming its line and column, before anything is stored', async () => {
    const bad = await refusal(() => checkCsv('query,reference\r\nA Name,ok\r\nB\u0000Name,r\u00001\r\n'));
    expect(bad.fieldErrors).toEqual([
      { pointer: '/items/1/query', detail: 'line 3: must not hold a NUL character' },
      { pointer: '/items/1/reference', detail: 'line 3: must not hold a NUL character' },
    ]);
  });

  it('counts the lines a CSV row is on as the file does: blank lines and quoted line breaks too', async () => {
    const submission = await submissionFromCsv(
      '\uFEFFquery,type\r\n\r\n"Twö\r\nLines",person\r\nC Name,ship\r\n',
    );
    expect(submission.lines).toEqual([3, 5]);
    expect(submission.rowErrors?.[0]?.detail).toBe(
      'line 5: must be one of person, organization, vessel, aircraft, entity',
    );
  });

  it('checks every item as a single screening would, with the batch options as defaults, and lists every bad one', async () => {
    const submission = {
      items: [
        { query: 'Good Name' },
        { query: 'x' },
        { query: 'Other Name', options: { sources: ['un_sc', 'nope'] } },
        { query: 'Named', reference: 'r'.repeat(101) },
      ],
      options: { threshold: 0.8 },
    };
    const error = await refusal(() => checkBatchItems(submission, PLANS.professional, [un], TODAY));
    expect(error.detail).toBe('3 of the 4 items are not valid; nothing was queued.');
    expect(error.fieldErrors.map((e) => e.pointer)).toEqual([
      '/items/1/query',
      '/items/2/options/sources',
      '/items/3/reference',
    ]);
    const fine = await checkBatchItems(
      {
        items: [{ query: 'Good Name', options: { threshold: 0.6 } }, { query: 'Other' }],
        options: { threshold: 0.8 },
      },
      PLANS.professional,
      [un],
      TODAY,
    );
    expect(fine.map((i) => i.request.options?.threshold)).toEqual([0.6, 0.8]);
  });

  it('refuses an empty batch and one over 10,000 items', async () => {
    const empty = await refusal(() => checkBatchItems({ items: [] }, PLANS.enterprise, [un], TODAY));
    expect(empty.fieldErrors[0]!.pointer).toBe('/items');
    const many = { items: Array.from({ length: 10_001 }, () => ({ query: 'Some Name' })) };
    expect((await refusal(() => checkBatchItems(many, PLANS.enterprise, [un], TODAY))).code).toBe(
      'validation-failed',
    );
  });

  it('writes results as RFC 4180 CSV with what each item asked, and defuses cells a spreadsheet would run as formulas', () => {
    const csv = batchResultsCsv([
      {
        index: 0,
        reference: '=1+2',
        screening_id: null,
        risk_score: null,
        risk_level: null,
        flag_count: null,
        status: 'failed',
        error: 'quota-exceeded: "full", try later',
        complete: null,
        sources_failed: null,
        request: {
          query: '=HYPERLINK("http://x", "Acme, Ltd")',
          type: 'organization',
          date_of_birth: null,
          countries: ['GB', 'IE'],
          identifiers: [
            { type: 'company_number', value: '01234567' },
            { type: 'lei', value: '5493001KJTIIGC8Y1R12', country: 'GB' },
          ],
          options: { threshold: 0.5, sources: ['un_sc'], include_adverse_media: false },
        },
      },
      {
        index: 1,
        reference: 'r1',
        screening_id: '0b6f4f55-3f0e-4b8e-9a57-2c1f1f0a9d11',
        risk_score: 0,
        risk_level: 'low',
        flag_count: 0,
        status: 'completed',
        complete: false,
        sources_failed: [{ source: 'eu_fsf', reason: 'unavailable' }],
        request: {
          query: '-Maria Lopez',
          type: 'person',
          date_of_birth: '1970-01',
          countries: [],
          identifiers: [],
          options: { threshold: 0.7, sources: ['un_sc'], include_adverse_media: true },
        },
      },
      {
        index: 2,
        reference: null,
        screening_id: null,
        risk_score: null,
        risk_level: null,
        flag_count: null,
        status: 'pending',
        complete: null,
        sources_failed: null,
        request: null,
      },
    ]);
    expect(csv).toBe(
      'index,reference,screening_id,risk_score,risk_level,flag_count,status,error,complete,' +
        'query,type,date_of_birth,countries,identifiers\r\n' +
        `0,'=1+2,,,,,failed,"quota-exceeded: ""full"", try later",,` +
        `"'=HYPERLINK(""http://x"", ""Acme, Ltd"")",organization,,GB;IE,company_number:01234567;lei:5493001KJTIIGC8Y1R12\r\n` +
        "1,r1,0b6f4f55-3f0e-4b8e-9a57-2c1f1f0a9d11,0,low,0,completed,,false,'-Maria Lopez,person,1970-01,,\r\n" +
        '2,,,,,,pending,,,,,,,\r\n',
    );
  });
});
