import { expect } from 'vitest';
import type { TestApp } from './test-app.js';

interface StoredCookie {
  value: string;
  path: string;
  attributes: string;
}

export interface Page {
  status: number;
  headers: Headers;
  body: string;
  location: string | null;
}

/**
 * A browser-like client of the dashboard over real HTTP: keeps cookies (by path), does not follow
 * redirects (tests look at them), and remembers the CSRF token of the last page it read.
 */
export class DashboardClient {
  readonly cookies = new Map<string, StoredCookie>();
  /** The `_csrf` value of the last page that had a form. */
  csrf = '';

  constructor(
    readonly baseUrl: string,
    /** Sent with every request (e.g. X-Forwarded-For to act as another client behind a proxy). */
    readonly headers: Record<string, string> = {},
  ) {}

  cookieHeader(path: string): string {
    return [...this.cookies.entries()]
      .filter(([, cookie]) => path.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`)
      .join('; ');
  }

  /** The raw Set-Cookie line last received for a cookie (its attributes). */
  cookieAttributes(name: string): string | undefined {
    return this.cookies.get(name)?.attributes;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.send('GET', path, undefined, headers);
  }

  async post(
    path: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<Page> {
    return this.send('POST', path, new URLSearchParams(form).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    });
  }

  /** Opens the sign-in page and submits the form, as a person would. */
  async signIn(email: string, password: string): Promise<Page> {
    const form = await this.get('/dashboard/sign-in');
    expect(form.status).toBe(200);
    return this.post('/dashboard/sign-in', { _csrf: this.csrf, email, password });
  }

  private async send(
    method: string,
    path: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<Page> {
    const cookie = this.cookieHeader(path);
    const response = await fetch(this.baseUrl + path, {
      method,
      body,
      redirect: 'manual',
      headers: { ...this.headers, ...(cookie ? { cookie } : {}), ...headers },
    });
    for (const line of response.headers.getSetCookie()) this.store(line);
    const text = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text);
    if (token) this.csrf = token[1]!;
    return {
      status: response.status,
      headers: response.headers,
      body: text,
      location: response.headers.get('location'),
    };
  }

  private store(line: string): void {
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    const [name, ...value] = pair!.split('=');
    const path = attributes.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
    if (attributes.some((a) => /^max-age=0$/i.test(a))) this.cookies.delete(name!);
    else this.cookies.set(name!, { value: value.join('='), path, attributes: line });
  }
}

/** A fresh account with a dashboard user (through the operator API); returns what a test needs. */
export async function accountWithUser(
  api: TestApp,
  plan: 'starter' | 'professional' | 'enterprise' = 'professional',
): Promise<{
  accountId: string;
  key: string;
  keyId: string;
  email: string;
  password: string;
  userId: string;
}> {
  const { account, key, keyId } = await api.createAccount(plan);
  const email = `user-${account.id.slice(0, 8)}@example.com`;
  const password = 'correct horse battery staple';
  const created = await api.admin('POST', `/admin/v1/accounts/${account.id}/users`, { email, password });
  if (created.status !== 201) throw new Error(`user creation failed: ${JSON.stringify(created.body)}`);
  return { accountId: account.id, key, keyId, email, password, userId: created.body.id };
}

/** The full keys shown on a page (there should be at most one: the one just created). */
export function fullKeysIn(html: string): string[] {
  return html.match(/cs_live_[0-9A-Za-z]{32}/g) ?? [];
}

/** The text of the page's alert, if any. */
export function alertText(html: string): string | undefined {
  return /<p class="alert" role="alert"(?: id="[^"]*")?>([^<]*)<\/p>/.exec(html)?.[1];
}
