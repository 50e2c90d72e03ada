/** The time source of every service, passed in so tests can move time (month boundaries, expiry). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
