import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import type { AttemptLimiter } from '../store/attempt-limiter.js';
import { DailyPurge } from '../store/daily-purge.js';
import type { Db } from '../store/database.js';
import type { AccountStatus } from './accounts.js';
import { dummyPasswordHash, verifyPassword } from './passwords.js';
import type { PlanId } from './plans.js';
import { normaliseEmail } from './users.js';

/** A session ends after this long without a request (sliding: every request restarts it). */
export const DASHBOARD_SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** Whatever its use, a session ends this long after sign-in: a stolen cookie cannot live for ever. */
export const DASHBOARD_SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** Failed sign-ins allowed per (email, client IP) within the window below (checked passwords, at once or not). */
export const SIGN_IN_FAILURES_MAX = 5;
export const SIGN_IN_FAILURE_WINDOW_SECONDS = 15 * 60;
/**
 * Failed sign-in attempts (for any email) allowed per client IP within the window below: each costs
 * ~0.15 s and 32 MB of scrypt, so a flood of guesses from one address is refused before that work.
 * Successful sign-ins do not count, so an office behind one address is not refused for signing in.
 */
export const SIGN_IN_ATTEMPTS_PER_IP_MAX = 30;
export const SIGN_IN_ATTEMPTS_PER_IP_WINDOW_SECONDS = 15 * 60;
/** Expired sessions are deleted this often (they are refused as soon as they expire anyway). */
export const SESSION_PURGE_INTERVAL_MS = 60 * 60 * 1000;
const SESSION_TOKEN_BYTES = 32;
const CSRF_TOKEN_BYTES = 32;

/** Who a signed-in dashboard request comes from. */
export interface SignedInUser {
  sessionId: string;
  userId: string;
  email: string;
  accountId: string;
  accountName: string;
  plan: PlanId;
  /** The session's synchronizer token, to be echoed by every state-changing request. */
  csrfToken: string;
}

export type SignInResult =
  | { outcome: 'signed-in'; token: string; user: SignedInUser }
  | { outcome: 'invalid' }
  /** `pair`: too many failures for this email from this IP; `client`: too many attempts from this IP. */
  | { outcome: 'locked'; retryAfterSeconds: number; reason: 'pair' | 'client' };

export interface DashboardSessionsDeps {
  db: Db;
  clock: Clock;
  /** Sign-ins per (email, client IP) until one succeeds (SIGN_IN_FAILURES_MAX). */
  failures: AttemptLimiter;
  /** Sign-ins per client IP, whatever the email; successful ones are given back (SIGN_IN_ATTEMPTS_PER_IP_MAX). */
  attemptsPerClient: AttemptLimiter;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function sameToken(presented: string, expected: string): boolean {
  // Hashing first gives equal lengths, so the comparison time reveals nothing about the token.
  return timingSafeEqual(
    createHash('sha256').update(presented).digest(),
    createHash('sha256').update(expected).digest(),
  );
}

interface SessionRow {
  session_id: string;
  csrf_token: string;
  user_id: string;
  email: string;
  account_id: string;
  account_name: string;
  plan: string;
}

function toSignedInUser(row: SessionRow): SignedInUser {
  return {
    sessionId: row.session_id,
    userId: row.user_id,
    email: row.email,
    accountId: row.account_id,
    accountName: row.account_name,
    plan: row.plan as PlanId,
    csrfToken: row.csrf_token,
  };
}

/**
 * Dashboard sign-in and server-side sessions. The session token lives only in the user's cookie;
 * the database keeps its SHA-256, so a copy of the database cannot be used to sign in.
 */
export class DashboardSessions {
  constructor(private readonly deps: DashboardSessionsDeps) {}

  /**
   * Checks the password and opens a session. An unknown email, a wrong password and the right
   * password of a suspended account's user give the same answer after the same work (scrypt,
   * against a dummy hash for an unknown email), and all three count as a failure: neither the
   * answer nor the lockout tells a guesser that a suspended user's password was right.
   */
  async signIn(rawEmail: string, password: string, clientIp: string): Promise<SignInResult> {
    const email = normaliseEmail(rawEmail);
    const subject = sha256(`${email}\n${clientIp}`);
    // Both limits count the attempt before any scrypt work, each in one atomic step: a burst of
    // parallel guesses gets no more password checks than the limits allow, and a refused attempt
    // costs two counter writes. A success gives its counts back afterwards.
    const client = `ip:${clientIp}`;
    const clientWait = await this.deps.attemptsPerClient.take(client);
    if (clientWait !== undefined)
      return { outcome: 'locked', retryAfterSeconds: clientWait, reason: 'client' };
    const wait = await this.deps.failures.take(subject);
    if (wait !== undefined) {
      // Refused before any check: it is not a failed attempt of this address.
      await this.deps.attemptsPerClient.giveBack(client);
      return { outcome: 'locked', retryAfterSeconds: wait, reason: 'pair' };
    }
    const user = await this.deps.db
      .selectFrom('users')
      .innerJoin('accounts', 'accounts.id', 'users.account_id')
      .select(['users.id', 'users.password_hash', 'accounts.status'])
      .where('users.email', '=', email)
      .executeTakeFirst();
    const valid = await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash()));
    if (!user || !valid || (user.status as AccountStatus) !== 'active') return { outcome: 'invalid' };
    await Promise.all([this.deps.failures.reset(subject), this.deps.attemptsPerClient.giveBack(client)]);
    return this.open(user.id);
  }

  /**
   * The user of a session token, or undefined when it is unknown, idle too long, too old, or its
   * account is suspended. A valid session is slid forward in the same statement.
   */
  async authenticate(token: string): Promise<SignedInUser | undefined> {
    const now = this.deps.clock.now();
    const { rows } = await sql<SessionRow>`
      UPDATE dashboard_sessions AS s SET last_seen_at = ${now}
      FROM users AS u JOIN accounts AS a ON a.id = u.account_id
      WHERE s.token_hash = ${sha256(token)} AND u.id = s.user_id AND a.status = 'active'
        AND s.last_seen_at > ${new Date(now.getTime() - DASHBOARD_SESSION_IDLE_MS)}
        AND s.created_at > ${new Date(now.getTime() - DASHBOARD_SESSION_MAX_AGE_MS)}
      RETURNING s.id AS session_id, s.csrf_token, u.id AS user_id, u.email, a.id AS account_id,
        a.name AS account_name, a.plan`.execute(this.deps.db);
    return rows[0] ? toSignedInUser(rows[0]) : undefined;
  }

  /** Whether a presented synchronizer token is the session's. */
  csrfMatches(user: SignedInUser, presented: string | undefined): boolean {
    return presented !== undefined && presented.length > 0 && sameToken(presented, user.csrfToken);
  }

  /** Ends the session of this token (nothing happens for an unknown one). */
  async signOut(token: string): Promise<void> {
    await this.deps.db.deleteFrom('dashboard_sessions').where('token_hash', '=', sha256(token)).execute();
  }

  private async open(userId: string): Promise<SignInResult> {
    const token = randomBytes(SESSION_TOKEN_BYTES).toString('base64url');
    const now = this.deps.clock.now();
    await this.deps.db
      .insertInto('dashboard_sessions')
      .values({
        id: randomUUID(),
        token_hash: sha256(token),
        user_id: userId,
        csrf_token: randomBytes(CSRF_TOKEN_BYTES).toString('base64url'),
        created_at: now,
        last_seen_at: now,
      })
      .execute();
    const user = await this.authenticate(token);
    if (!user) throw new Error('a session just opened could not be read back');
    return { outcome: 'signed-in', token, user };
  }
}

/**
 * Ends every dashboard session of the account's users (at suspension): refusing them while the
 * account is suspended is not enough, as they would work again once it is resumed.
 */
export async function endAccountSessions(db: Db, accountId: string): Promise<void> {
  await db
    .deleteFrom('dashboard_sessions')
    .where('user_id', 'in', (eb) => eb.selectFrom('users').select('id').where('account_id', '=', accountId))
    .execute();
}

/** Deletes sessions that can no longer be used, hourly. */
export class ExpiredSessionPurge extends DailyPurge {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    logger: FastifyBaseLogger,
  ) {
    super(SESSION_PURGE_INTERVAL_MS, logger, 'expired dashboard sessions');
  }

  protected async purge(): Promise<number> {
    const now = this.clock.now().getTime();
    const result = await this.db
      .deleteFrom('dashboard_sessions')
      .where((eb) =>
        eb.or([
          eb('last_seen_at', '<=', new Date(now - DASHBOARD_SESSION_IDLE_MS)),
          eb('created_at', '<=', new Date(now - DASHBOARD_SESSION_MAX_AGE_MS)),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
