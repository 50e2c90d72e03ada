/**
 * The closed list of failures the service reports. Services throw `ServiceError` with one of
 * these codes; the HTTP layer maps each to exactly one problem type and status.
 */
export const ERROR_CODES = [
  'malformed-request',
  'unauthenticated',
  'key-revoked',
  'account-suspended',
  'admin-unauthenticated',
  'not-found',
  'method-not-allowed',
  'request-timeout',
  'payload-too-large',
  'unsupported-media-type',
  'headers-too-large',
  'validation-failed',
  'limit-reached',
  'plan-feature-unavailable',
  'quota-exceeded',
  'quota-insufficient',
  'monitor-limit-reached',
  'rate-limited',
  'conflict',
  'service-unavailable',
  'sources-failed',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldError {
  pointer: string;
  detail: string;
}

/** A field holding `\u0000`, which no PostgreSQL text can store: refused where the text enters. */
export const NUL_CHARACTER_DETAIL = 'must not hold a NUL character';

/** Members a problem document carries besides the standard ones: figures a client acts on. */
export interface ProblemMembers {
  /** Screenings the request asked for (`quota-insufficient`). */
  requested?: number;
  /** Screenings left this month (`quota-insufficient`). */
  remaining?: number;
  /** Each selected source and why it gave no answer (`sources-failed`). */
  sources_failed?: readonly { source: string; reason: string }[];
}

export class ServiceError extends Error {
  /**
   * @param members what the problem document carries besides its standard members (RFC 9457
   *   extension members, e.g. the failed sources of `sources-failed`)
   */
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly fieldErrors: FieldError[] = [],
    readonly members: ProblemMembers = {},
  ) {
    super(detail);
    this.name = 'ServiceError';
  }
}

export function notFound(what: string): ServiceError {
  return new ServiceError('not-found', `${what} was not found.`);
}
