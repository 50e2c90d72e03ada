import { randomUUID } from 'node:crypto';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Identifiers from URLs are checked before they reach SQL: a malformed id is simply not found. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

export const newId = randomUUID;
