/** Why a provider could not answer; the message names no key, header or internal address. */
export type ProviderFailure =
  | 'timeout'
  | 'http_status'
  | 'malformed'
  | 'too_large'
  | 'redirect'
  | 'network'
  | 'circuit_open';

/**
 * A provider that could not answer. The screening records it as a failed source (never as "no
 * match"); `retryable` failures (5xx, timeout, connection) get the one retry.
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly failure: ProviderFailure,
    detail: string,
    readonly status?: number,
  ) {
    super(`${provider}: ${detail}`);
    this.name = 'ProviderError';
  }

  get retryable(): boolean {
    return (
      this.failure === 'timeout' ||
      this.failure === 'network' ||
      (this.failure === 'http_status' && (this.status ?? 0) >= 500)
    );
  }
}
