import { describe, expect, it } from 'vitest';
import { countryCode } from '../../../src/sources/entity-building/countries.js';
import { parseBirthDate } from '../../../src/sources/entity-building/dates.js';
import { listIdentifier } from '../../../src/sources/lists/parsers/identifier-types.js';
import { imoNumbersIn } from '../../../src/sources/lists/parsers/imo-numbers.js';
import { parseOfacRemarks } from '../../../src/sources/lists/parsers/ofac-remarks.js';

describe('date, country and Remarks readers shared by the parsers', () => {
  it.each([
    ['10 Dec 1948', '1948-12-10'],
    ['circa 1951', '1951'],
    ['1962 to 1964', '1962/1964'],
    ['Mar 1962', '1962-03'],
    ['Nov. 1973', '1973-11'],
    ['12/05/1958', '1958-05-12'],
    ['dd/mm/1945', '1945'],
    ['00/00/1955', '1955'],
    ['05/1973', '1973-05'],
    ['2026-02-27T00:00:09.554Z', '2026-02-27'],
    ['Between Aug. and Sep. 1977', '1977-08/1977-09'],
    ['30-35 years old', undefined],
    ['24/06/1402 (Hijri Calendar)', undefined],
  ])('birth date %s reads as %s', (text, expected) => {
    expect(parseBirthDate(text)).toBe(expected);
  });

  it.each([
    ['Korea, North', 'KP'],
    ['Iran (Islamic Republic of)', 'IR'],
    ['Congo (Democratic Republic)', 'CD'],
    ['Virgin Islands, British', 'VG'],
    ['Iraq (previous address)', 'IQ'],
    ['Region: Gaza', 'PS'],
    ['Türkiye', 'TR'],
    ['UNKNOWN', undefined],
    ['00', undefined],
    ['Kafia Kingi', 'Kafia Kingi'],
  ])('country %s resolves to %s', (name, code) => {
    expect(countryCode(name)).toBe(code);
  });

  it('reads every kind of OFAC Remarks statement and leaves the rest alone', () => {
    const facts = parseOfacRemarks(
      "DOB 1962 to 1964; alt. DOB circa 1966; POB Baghdad, Iraq; nationality Iraq; alt. citizen Jordan; Gender Female; Passport A123 (Iraq) issued 01 Jan 2000 expires 01 Jan 2010; Tax ID No. 7744001497 (Russia); SWIFT/BIC HAVIGB2L; Nationality of Registration Korea, North; Linked To: SOMEONE; a.k.a. 'UMM X'.",
    );
    expect(facts).toEqual({
      birthDates: ['1962/1964', '1966'],
      placesOfBirth: ['Baghdad, Iraq'],
      nationalities: ['Iraq', 'Jordan'],
      countries: ['Korea, North'],
      gender: 'Female',
      identifiers: [
        { label: 'Passport', value: 'A123', country: 'Iraq' },
        { label: 'Tax ID No.', value: '7744001497', country: 'Russia' },
        { label: 'SWIFT/BIC', value: 'HAVIGB2L' },
      ],
      weakAliases: ['UMM X'],
    });
  });

  it.each([
    ['Identification Number', 'IMO 5342883', 'imo', '5342883'],
    ['Company Number', 'IMO 5434358', 'imo', '5434358'],
    ['Vessel Registration Identification', 'IMO 9187629', 'imo', '9187629'],
    ['Vessel Registration Identification', '8606173', 'imo', '8606173'],
    ['Vessel Registration Identification', 'RS 150443', 'registration_number', 'RS 150443'],
    ['BusinessRegistrationNumber', 'IMO: 5987860', 'imo', '5987860'],
    ['IMONumber', 'IMO9562233', 'imo', '9562233'],
    ['Registered Ship Owner IMO', '5987860', 'imo', '5987860'],
    ['Company Number', '1027700132195', 'registration_number', '1027700132195'],
    ['Legal Entity Number', '253400JT3MQWNDKMJE44', 'lei', '253400JT3MQWNDKMJE44'],
    ['Legal Entity Number', '851683897', 'registration_number', '851683897'],
  ])('a list identifier "%s %s" is of kind %s, value %s', (label, value, type, kept) => {
    expect(listIdentifier(label, value)).toEqual({ type, value: kept, label });
  });

  it('reads the IMO numbers a record states of itself in prose, not those it mentions', () => {
    expect(imoNumbersIn('Registered owner of CHON MYONG 1. IMO number: 5571322.')).toEqual(['5571322']);
    expect(
      imoNumbersIn('Listed as asset of X (OFSI ID: 13635) (IMO number):7408873 (Current owners):X'),
    ).toEqual(['7408873']);
    expect(
      imoNumbersIn('contributed to the evasion. International Maritime Organization (IMO) Number: 1790183.'),
    ).toEqual(['1790183']);
    expect(imoNumbersIn('through a ship-to-ship transfer operation. Company Number IMO 5434358.')).toEqual([
      '5434358',
    ]);
    expect(
      imoNumbersIn(
        'operator/manager of the following vessels with IMO Number: (a) Chol Ryong 8606173, (b) Mi Rim 8713471',
      ),
    ).toEqual([]);
    expect(imoNumbersIn('its tanker (IMO 9123456) called at Nampo; IMO number: 12345678')).toEqual([]);
  });
});
