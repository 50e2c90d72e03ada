import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { backends } from './backends.js';
import { TestApp } from './test-app.js';

/** Debian's Chromium (apt-get install chromium); the tests never download a browser. */
export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const PHONE = { width: 375, height: 740 };
export const LAPTOP = { width: 1280, height: 800 };

/** `describe(title, suite)` where Chromium is installed; elsewhere one skipped test that says why. */
export function describeInChromium(title: string, suite: () => void): void {
  if (!fs.existsSync(CHROMIUM)) {
    describe.skip(`${title} (skipped: ${CHROMIUM} is not installed; apt-get install chromium)`, () => {
      it('runs only where Chromium is installed', () => {});
    });
    return;
  }
  describe(title, suite);
}

/** One Chromium profile for a test file, pointed at one app, collecting every CSP violation. */
export class DashboardBrowser {
  /** Every CSP violation any page reported, from the console or the violation event. */
  readonly violations: string[] = [];

  private constructor(
    private readonly baseUrl: string,
    private readonly context: BrowserContext,
    private readonly userDataDir: string,
  ) {}

  static async launch(baseUrl: string): Promise<DashboardBrowser> {
    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-chromium-'));
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: LAPTOP,
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
    // Page-side code is passed as source text: the tests are type-checked without the DOM library.
    await context.addInitScript(`document.addEventListener('securitypolicyviolation', (event) =>
      console.error('CSP violation: ' + event.violatedDirective + ' ' + event.blockedURI))`);
    // Chromium starts its renderer on the first page: paid here, not by the first test.
    const warmUp = await context.newPage();
    await warmUp.goto(`${baseUrl}/dashboard/sign-in`);
    await warmUp.close();
    return new DashboardBrowser(baseUrl, context, userDataDir);
  }

  /** A page of a signed-out visitor: the profile's cookies are shared, so each test starts afresh. */
  async newPage(viewport = LAPTOP): Promise<Page> {
    await this.context.clearCookies();
    const page = await this.context.newPage();
    // Generous: on a loaded 2-core CI machine a sign-in (scrypt) and a first page load take seconds.
    page.setDefaultTimeout(20_000);
    await page.setViewportSize(viewport);
    page.on('console', (message) => {
      if (/Content.Security.Policy|CSP violation/i.test(message.text())) this.violations.push(message.text());
    });
    return page;
  }

  /** Signs every page of the profile out (the cookies are the profile's). */
  clearCookies(): Promise<void> {
    return this.context.clearCookies();
  }

  async signIn(page: Page, user: { email: string; password: string }): Promise<void> {
    await page.goto(`${this.baseUrl}/dashboard/sign-in`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/keys');
  }

  /**
   * Waits until the focused element has this id: autofocus and the focus moves made after an htmx
   * swap happen a moment after the page or the swap is in place, later still on a loaded machine.
   * Fails (after the page's default timeout) when focus never gets there.
   */
  async focusIsOn(page: Page, id: string): Promise<void> {
    await page.waitForFunction(`document.activeElement?.id === ${JSON.stringify(id)}`);
  }

  async close(): Promise<void> {
    await this.context.close();
    fs.rmSync(this.userDataDir, { recursive: true, force: true });
  }
}

/**
 * For a test file's suite: an app on the first backend and a Chromium profile pointed at it,
 * started before the suite's tests and closed after them. Read `api` and `browser` inside tests.
 */
export function appInChromium(): { readonly api: TestApp; readonly browser: DashboardBrowser } {
  const started: { api?: TestApp; browser?: DashboardBrowser } = {};
  beforeAll(async () => {
    started.api = await TestApp.start(backends()[0]!);
    started.browser = await DashboardBrowser.launch(started.api.baseUrl);
  });
  afterAll(async () => {
    await started.browser?.close();
    await started.api?.close();
  });
  return {
    get api() {
      if (!started.api) throw new Error('The app starts before the first test.');
      return started.api;
    },
    get browser() {
      if (!started.browser) throw new Error('Chromium starts before the first test.');
      return started.browser;
    },
  };
}
