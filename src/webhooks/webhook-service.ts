import type { AuthenticatedKey } from '../accounts/key-authenticator.js';
import { PLANS } from '../accounts/plans.js';
import type { Clock } from '../clock.js';
import { notFound, ServiceError } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import type { Db } from '../store/database.js';
import {
  checkEndpointUrl,
  type EndpointGuard,
  type EndpointPolicy,
  EndpointRefusal,
} from './endpoint-guard.js';
import type { SecretBox } from './secret-box.js';
import {
  ATTEMPTS_PAGE_DEFAULT,
  DEFAULT_WEBHOOK_EVENTS,
  REGISTRATION_RESOLVE_TIMEOUT_MS,
  WEBHOOK_EVENTS,
  WEBHOOKS_PER_ACCOUNT_MAX,
  type WebhookEvent,
} from './webhook-policy.js';
import { generateWebhookSecret } from './webhook-secret.js';
import {
  type AttemptView,
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listAttempts,
  listWebhooks,
  type WebhookView,
  webhookSecretContext,
} from './webhook-store.js';
import type { WebhookSubscriptions } from './webhook-subscriptions.js';

export interface WebhookServiceDeps {
  db: Db;
  clock: Clock;
  guard: EndpointGuard;
  secrets: SecretBox;
  subscriptions: WebhookSubscriptions;
  /** How long registration waits for the host to resolve; REGISTRATION_RESOLVE_TIMEOUT_MS unless a test says. */
  resolveTimeoutMs?: number;
}

export interface WebhookRegistration {
  url: string;
  events?: string[] | undefined;
}

/** The answer to a registration: the only time the secret is shown. */
export type CreatedWebhook = Pick<WebhookView, 'id' | 'url' | 'events' | 'status' | 'created_at'> & {
  secret: string;
};

function isKnownEvent(name: string): name is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}

function subscribedEvents(requested: string[] | undefined): WebhookEvent[] {
  if (requested === undefined) return [...DEFAULT_WEBHOOK_EVENTS];
  const errors = requested
    .map((name, i) => ({ name, i }))
    .filter(({ name }) => !isKnownEvent(name))
    .map(({ name, i }) => ({
      pointer: `/events/${i}`,
      detail: `"${name}" is not a known event; known: ${WEBHOOK_EVENTS.join(', ')}`,
    }));
  if (errors.length > 0) throw new ServiceError('validation-failed', 'An event name is not known.', errors);
  return [...new Set(requested as WebhookEvent[])];
}

/**
 * Webhooks of an account: registration (plan, URL and SSRF checks, the secret sealed at rest), the
 * list, deletion (which cancels pending deliveries) and the delivery log. Every operation is scoped
 * to the caller's account; another account's webhook is not found.
 */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  /** `key`: the caller's account and plan (an API key's, or a dashboard user's). */
  async register(
    key: Pick<AuthenticatedKey, 'accountId' | 'plan'>,
    input: WebhookRegistration,
  ): Promise<CreatedWebhook> {
    if (!PLANS[key.plan].webhooks) {
      throw new ServiceError(
        'plan-feature-unavailable',
        'Webhooks are available on the Professional and Enterprise plans.',
      );
    }
    const events = subscribedEvents(input.events);
    await this.assertReachable(input.url);
    const id = newId();
    const secret = generateWebhookSecret();
    const created = await insertWebhook(
      this.deps.db,
      {
        id,
        accountId: key.accountId,
        url: input.url,
        events,
        secretCiphertext: this.deps.secrets.seal(secret, webhookSecretContext(id)),
        createdAt: this.deps.clock.now(),
      },
      WEBHOOKS_PER_ACCOUNT_MAX,
    );
    this.deps.subscriptions.changed(key.accountId);
    if (!created) {
      throw new ServiceError(
        'limit-reached',
        `An account may have at most ${WEBHOOKS_PER_ACCOUNT_MAX} webhooks; delete one before adding another.`,
      );
    }
    const { id: createdId, url, status, created_at } = created;
    return { id: createdId, url, events: created.events, status, created_at, secret };
  }

  list(accountId: string): Promise<WebhookView[]> {
    return listWebhooks(this.deps.db, accountId);
  }

  async get(accountId: string, id: string): Promise<WebhookView> {
    const webhook = isUuid(id) ? await findWebhook(this.deps.db, accountId, id) : undefined;
    if (!webhook) throw notFound('The webhook');
    return webhook;
  }

  /** Deletes the webhook (cancelling its pending deliveries); returns the URL it had. */
  async delete(accountId: string, id: string): Promise<{ url: string }> {
    const deleted = isUuid(id)
      ? await deleteWebhook(this.deps.db, accountId, id, this.deps.clock.now())
      : undefined;
    if (!deleted) throw notFound('The webhook');
    this.deps.subscriptions.changed(accountId);
    return deleted;
  }

  async attempts(accountId: string, id: string, limit = ATTEMPTS_PAGE_DEFAULT): Promise<AttemptView[]> {
    return (await this.history(accountId, id, limit)).attempts;
  }

  /** The webhook and its latest delivery attempts, newest first. */
  async history(
    accountId: string,
    id: string,
    limit = ATTEMPTS_PAGE_DEFAULT,
  ): Promise<{ webhook: WebhookView; attempts: AttemptView[] }> {
    const webhook = await this.get(accountId, id);
    return { webhook, attempts: await listAttempts(this.deps.db, webhook.id, limit) };
  }

  /** The URL's own rules, then the SSRF guard on what its host resolves to now. */
  private async assertReachable(url: string): Promise<void> {
    const parsed = checkUrl(url, this.deps.guard.policy);
    const timeoutMs = this.deps.resolveTimeoutMs ?? REGISTRATION_RESOLVE_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      await this.deps.guard.check(parsed, timeout);
    } catch (error) {
      if (timeout.aborted) {
        throw new ServiceError(
          'service-unavailable',
          `The webhook URL cannot be checked now: its host did not resolve within ${timeoutMs / 1000} s.`,
        );
      }
      if (!(error instanceof EndpointRefusal)) throw error;
      if (!error.permanent) {
        throw new ServiceError(
          'service-unavailable',
          `The webhook URL cannot be checked now: ${error.message}.`,
        );
      }
      throw urlRefused(error);
    }
  }
}

function urlRefused(refusal: EndpointRefusal): ServiceError {
  return new ServiceError('validation-failed', 'The webhook URL is not accepted.', [
    { pointer: '/url', detail: refusal.message },
  ]);
}

function checkUrl(url: string, policy: EndpointPolicy): URL {
  try {
    return checkEndpointUrl(url, policy);
  } catch (error) {
    if (error instanceof EndpointRefusal) throw urlRefused(error);
    throw error;
  }
}
