import { createHash } from 'node:crypto';
import type { ResolvedScreening } from './screening-request.js';

/**
 * Whom a screening is about, as decisions know it: the caller's own `reference` for the party when
 * the request gave one (the same customer, whatever spelling of the name is sent next time), or
 * else everything the request said of the party: its normalised name and type, and the birth date,
 * countries and identifiers where given. A decision taken for one subject never applies to another.
 */
export function subjectKey(
  screening: Pick<ResolvedScreening, 'entity' | 'type' | 'facts' | 'reference'>,
): string {
  if (screening.reference !== undefined) return `reference:${screening.reference}`;
  const { entity, type, facts } = screening;
  const material = JSON.stringify([
    entity,
    type,
    facts.dateOfBirth ?? null,
    facts.countries ? [...facts.countries].sort() : null,
    facts.identifiers
      ? facts.identifiers.map((id) => [id.type, id.value, id.country ?? null].join('\u0000')).sort()
      : null,
  ]);
  return `query:${createHash('sha256').update(material).digest('hex')}`;
}
