/** The plans and everything they allow, in one place. */
export type PlanId = 'starter' | 'professional' | 'enterprise';

export interface Plan {
  id: PlanId;
  /** Screenings per calendar month (UTC); `null` is unlimited. */
  monthlyScreeningLimit: number | null;
  adverseMedia: boolean;
  webhooks: boolean;
  batchScreening: boolean;
  /** Ongoing monitoring (monitors and their alerts). */
  monitoring: boolean;
  /** Monitors an account may hold at once; `null` is unlimited. */
  monitorsMax: number | null;
  /**
   * Keys not revoked an account may hold at once: each key has its own rate limit, so keys without
   * bound would multiply it. Revoked keys do not count.
   */
  activeKeysMax: number;
}

/** Requests per minute per API key unless the operator set an override on the account. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 100;

/** Active API keys per account: the same on every plan today. */
export const ACTIVE_KEYS_PER_ACCOUNT_MAX = 20;

export const PLANS: Readonly<Record<PlanId, Plan>> = {
  starter: {
    id: 'starter',
    monthlyScreeningLimit: 500,
    adverseMedia: false,
    webhooks: false,
    batchScreening: false,
    monitoring: false,
    monitorsMax: 0,
    activeKeysMax: ACTIVE_KEYS_PER_ACCOUNT_MAX,
  },
  professional: {
    id: 'professional',
    monthlyScreeningLimit: 2_000,
    adverseMedia: true,
    webhooks: true,
    batchScreening: true,
    monitoring: true,
    monitorsMax: 10_000,
    activeKeysMax: ACTIVE_KEYS_PER_ACCOUNT_MAX,
  },
  enterprise: {
    id: 'enterprise',
    monthlyScreeningLimit: null,
    adverseMedia: true,
    webhooks: true,
    batchScreening: true,
    monitoring: true,
    monitorsMax: null,
    activeKeysMax: ACTIVE_KEYS_PER_ACCOUNT_MAX,
  },
};

export const PLAN_IDS = Object.keys(PLANS) as PlanId[];

export function isPlanId(value: string): value is PlanId {
  return Object.hasOwn(PLANS, value);
}
