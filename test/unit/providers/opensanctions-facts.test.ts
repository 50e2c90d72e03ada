import { describe, expect, it } from 'vitest';
import { yenteMatchRequest } from '../../../src/sources/providers/opensanctions-api.js';
import { opensanctionsFlag, yenteResults } from '../../../src/sources/providers/opensanctions-result.js';
import type { SourceQuery } from '../../../src/sources/source.js';

const query = (extra: Partial<SourceQuery>): SourceQuery => ({
  entity: 'ivan petrovich sokolov',
  type: 'person',
  threshold: 0.5,
  limit: 10,
  ...extra,
});

/** A hand-written FtM person in yente's result shape. */
const sokolov = {
  id: 'fict-sokolov',
  schema: 'Person',
  caption: 'Ivan Petrovich SOKOLOV',
  properties: {
    name: ['Ivan Petrovich SOKOLOV'],
    birthDate: ['1961-05-04'],
    nationality: ['ru'],
    passportNumber: ['7155 123456'],
    topics: ['sanction'],
  },
  datasets: ['us_ofac_sdn'],
  score: 0.9,
};

const [candidate] = (() => {
  const read = yenteResults({ responses: { q1: { status: 200, results: [sokolov] } } }, 'q1');
  if (!Array.isArray(read)) throw new Error(read.problem);
  return read;
})();

describe('the OpenSanctions API with the facts of a screening', () => {
  it('sends the birth date, countries and identifiers as FtM properties yente scores with', () => {
    const { body } = yenteMatchRequest(
      'https://api.opensanctions.org',
      'default',
      query({
        facts: {
          dateOfBirth: '1961',
          countries: ['RU'],
          identifiers: [
            { type: 'passport', value: '7155 123456' },
            { type: 'crypto_wallet', value: 'bc1qexample' },
          ],
        },
      }),
    );
    expect(body.queries.q1.properties).toEqual({
      name: ['ivan petrovich sokolov'],
      birthDate: ['1961'],
      nationality: ['RU'],
      passportNumber: ['7155 123456'],
    });
  });

  it('leaves the name out when only identifiers were given', () => {
    const { body } = yenteMatchRequest(
      'https://api.opensanctions.org',
      'default',
      query({
        identifiersOnly: true,
        facts: { identifiers: [{ type: 'imo', value: '9187629' }] },
        type: 'vessel',
      }),
    );
    expect(body.queries.q1).toEqual({ schema: 'Vessel', properties: { imoNumber: ['9187629'] } });
  });

  it('weighs a candidate by the facts, as the lists are', () => {
    const plain = opensanctionsFlag(candidate!, query({}), { enabledLists: [] })!;
    const otherPerson = opensanctionsFlag(candidate!, query({ facts: { dateOfBirth: '1990-01-01' } }), {
      enabledLists: [],
    })!;
    expect(otherPerson.match_score).toBeCloseTo(plain.match_score * 0.7, 10);
    const byPassport = opensanctionsFlag(
      candidate!,
      query({ entity: 'someone else', facts: { identifiers: [{ type: 'passport', value: '7155123456' }] } }),
      { enabledLists: [] },
    )!;
    expect(byPassport.match_score).toBe(1);
    expect(byPassport.details.match_explanation).toMatchObject({
      secondary: [{ field: 'identifiers', outcome: 'match' }],
    });
  });
});
