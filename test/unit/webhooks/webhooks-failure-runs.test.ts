import { describe, expect, it } from 'vitest';
import { type AttemptRecord, failureRuns } from '../../../src/webhooks/attempt-recorder.js';

function attempt(webhookId: string, ok: boolean, second: number): AttemptRecord {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, second));
  return {
    delivery: {
      id: `d${second}`,
      claimToken: 't',
      attempt: 1,
      webhookId,
      accountId: 'a',
      webhookDeleted: false,
      url: 'https://hooks.example.com/',
      secretCiphertext: null,
      event: 'screening.complete',
      payload: '{}',
    },
    attemptedAt: at,
    finishedAt: at,
    ok,
    statusCode: ok ? 200 : 500,
    durationMs: 1,
    error: ok ? null : 'HTTP 500',
    nextAttemptAt: ok ? undefined : new Date(at.getTime() + 60_000),
  };
}

describe('webhook failure runs, when attempts are written in groups', () => {
  it('adds the failures of a group without a success to the run', () => {
    expect(failureRuns([attempt('w', false, 1), attempt('w', false, 2)])).toEqual([
      { webhookId: 'w', reset: false, failures: 2, lastAttemptAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 2)) },
    ]);
  });

  it('restarts the run at the last success: only the failures after it count', () => {
    const [run] = failureRuns([
      attempt('w', false, 1),
      attempt('w', true, 2),
      attempt('w', false, 3),
      attempt('w', false, 4),
    ]);
    expect(run).toMatchObject({ reset: true, failures: 2 });
    expect(failureRuns([attempt('w', false, 1), attempt('w', true, 2)])[0]).toMatchObject({
      reset: true,
      failures: 0,
    });
  });

  it('keeps each webhook to its own run', () => {
    const runs = failureRuns([attempt('a', false, 1), attempt('b', true, 2), attempt('a', false, 3)]);
    expect(runs).toEqual([
      expect.objectContaining({ webhookId: 'a', reset: false, failures: 2 }),
      expect.objectContaining({ webhookId: 'b', reset: true, failures: 0 }),
    ]);
  });
});
