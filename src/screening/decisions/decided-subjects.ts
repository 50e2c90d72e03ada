import { LRUCache } from 'lru-cache';
import type { Db } from '../../store/database.js';
import { type StoredDecision, standingDecisions } from './decision-store.js';

const REMEMBERED_ACCOUNTS_MAX = 10_000;
/** An account with standing decisions on more subjects than this is always asked in SQL. */
export const REMEMBERED_SUBJECTS_MAX = 10_000;
const TOO_MANY = 'too many';

/**
 * Which subjects of an account have standing decisions, so that a screening of any other subject
 * (nearly all of them) applies none without a database read: on the embedded database that read
 * was a tenth of a live screening's time at one connection. Only where this process is the one
 * writer of decisions (the embedded database: its folder is locked) is the answer remembered, as
 * WebhookSubscriptions does; each decision taken or withdrawn here forgets the account once it is
 * committed, before its answer, so a screening that starts after it reads the database again. A
 * read racing with one is not remembered. With PostgreSQL another instance may decide at any
 * moment: every screening reads the subject's decisions there.
 */
export class DecidedSubjects {
  /** Per account: the subjects with standing decisions, or TOO_MANY to keep. */
  private readonly known = new LRUCache<string, ReadonlySet<string> | typeof TOO_MANY>({
    max: REMEMBERED_ACCOUNTS_MAX,
  });
  /** Changes with every decision taken or withdrawn, so a read racing with one is not remembered. */
  private generation = 0;

  constructor(
    private readonly db: Db,
    private readonly soleWriter: boolean,
  ) {}

  /** The subject's standing decisions, newest first (as `standingDecisions`). */
  async standing(accountId: string, subjectKey: string): Promise<StoredDecision[]> {
    if (!this.soleWriter) return standingDecisions(this.db, accountId, subjectKey);
    let subjects = this.known.get(accountId);
    if (subjects === undefined) {
      const before = this.generation;
      const rows = await this.db
        .selectFrom('decisions')
        .select('subject_key')
        .distinct()
        .where('account_id', '=', accountId)
        .where('withdrawn_at', 'is', null)
        .limit(REMEMBERED_SUBJECTS_MAX + 1)
        .execute();
      subjects = rows.length > REMEMBERED_SUBJECTS_MAX ? TOO_MANY : new Set(rows.map((r) => r.subject_key));
      if (this.generation === before) this.known.set(accountId, subjects);
    }
    if (subjects !== TOO_MANY && !subjects.has(subjectKey)) return [];
    return standingDecisions(this.db, accountId, subjectKey);
  }

  /** Called once a decision of the account is committed (taken, superseded or withdrawn). */
  changed(accountId: string): void {
    this.generation++;
    this.known.delete(accountId);
  }
}
