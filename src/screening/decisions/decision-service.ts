import type { AuditActor } from '../../audit/audited-change.js';
import type { Clock } from '../../clock.js';
import { notFound, ServiceError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Db } from '../../store/database.js';
import { codePointLength } from '../normalise-query.js';
import type { DecisionValue } from '../screening-result.js';
import { retentionCutoff } from '../screening-store.js';
import type { DecidedSubjects } from './decided-subjects.js';
import {
  type DecisionFilter,
  findDecidableFlag,
  insertDecision,
  listDecisions,
  type StoredDecision,
  standingDecisions,
  subjectOfScreening,
  withdrawDecision,
} from './decision-store.js';
import { REVIEW_QUEUE_DAYS_DEFAULT, type ReviewQueue, reviewQueue } from './review-queue.js';

/** Longest note of a decision, in characters after trimming; a note is required. */
export const DECISION_NOTE_MAX_CHARS = 2_000;
/** Decisions per page of `GET /v1/decisions`, the default and the most a caller may ask. */
export const DECISIONS_PAGE_DEFAULT = 50;
export const DECISIONS_PAGE_MAX = 200;
export const DECISION_VALUES: readonly DecisionValue[] = ['false_positive', 'true_match'];

/** A decision as the API answers it (the subject's key is the service's own business). */
export type DecisionView = Omit<StoredDecision, 'subject_key'>;

export interface DecisionServiceDeps {
  db: Db;
  clock: Clock;
  retentionMonths: number;
  /** Told of every decision committed, so screenings read it (absent: screenings always read them). */
  decided?: DecidedSubjects;
}

/**
 * Analysts' decisions on the flags of stored screenings: taking one, listing the standing ones,
 * withdrawing one. Screenings apply them (ScreeningService). Each decision, supersession and
 * withdrawal is chained in the audit log with the decision's hash, in its own transaction, by
 * whoever made the request (`AuditActor`: the API key, or the dashboard user).
 */
export class DecisionService {
  constructor(private readonly deps: DecisionServiceDeps) {}

  async decide(
    decider: AuditActor,
    screeningId: string,
    flagId: string,
    input: { decision: DecisionValue; note: string },
  ): Promise<DecisionView> {
    const note = input.note.trim();
    if (note === '' || codePointLength(note) > DECISION_NOTE_MAX_CHARS) {
      throw new ServiceError('validation-failed', 'The note is missing or too long.', [
        { pointer: '/note', detail: `must hold 1 to ${DECISION_NOTE_MAX_CHARS} characters after trimming` },
      ]);
    }
    const now = this.deps.clock.now();
    const notBefore = retentionCutoff(now, this.deps.retentionMonths);
    const found = await findDecidableFlag(this.deps.db, decider.account_id, screeningId, flagId, notBefore);
    if (!found) throw notFound('The flag');
    const { flag } = found;
    const recordHash = flag.details.record_hash;
    const listedName = flag.details.name ?? flag.details.title;
    const stored = await insertDecision(this.deps.db, decider, {
      id: newId(),
      subjectKey: found.subjectKey,
      reference: found.reference,
      entity: found.entity,
      screeningId,
      flagId: flag.id,
      source: flag.source,
      list: flag.list,
      listedName: typeof listedName === 'string' ? listedName : null,
      recordHash: typeof recordHash === 'string' ? recordHash : '',
      decision: input.decision,
      note,
      at: now,
    });
    this.deps.decided?.changed(decider.account_id);
    return view(stored);
  }

  async list(
    accountId: string,
    filter: Partial<DecisionFilter>,
  ): Promise<{ data: DecisionView[]; next_cursor: string | null }> {
    const limit = Math.min(Math.max(1, filter.limit ?? DECISIONS_PAGE_DEFAULT), DECISIONS_PAGE_MAX);
    const page = await listDecisions(this.deps.db, accountId, { ...filter, limit });
    return { data: page.data.map(view), next_cursor: page.next_cursor };
  }

  /** The flags waiting for a decision, of the account's screenings of the last `days` days. */
  queue(accountId: string, days = REVIEW_QUEUE_DAYS_DEFAULT): Promise<ReviewQueue> {
    const since = new Date(this.deps.clock.now().getTime() - days * 24 * 60 * 60 * 1000);
    return reviewQueue(this.deps.db, accountId, since);
  }

  /** The standing decisions on the subject of a stored screening (none when it has no subject). */
  async standingFor(accountId: string, screeningId: string): Promise<StoredDecision[]> {
    const subject = await subjectOfScreening(this.deps.db, accountId, screeningId);
    return subject === undefined ? [] : standingDecisions(this.deps.db, accountId, subject);
  }

  async withdraw(actor: AuditActor, id: string): Promise<void> {
    const withdrawn = await withdrawDecision(this.deps.db, actor, id, this.deps.clock.now());
    if (!withdrawn) throw notFound('The decision');
    this.deps.decided?.changed(actor.account_id);
  }
}

function view(decision: StoredDecision): DecisionView {
  const { subject_key: _, ...rest } = decision;
  return rest;
}
