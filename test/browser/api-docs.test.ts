import { expect, it } from 'vitest';
import { appInChromium, describeInChromium } from '../support/browser.js';

describeInChromium('the API reference and problem pages in Chromium', () => {
  const started = appInChromium();

  it('renders every operation of /docs under its content security policy, with no violation', async () => {
    const { api, browser } = started;
    const page = await browser.newPage();
    const response = await page.goto(`${api.baseUrl}/docs/`);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    // Swagger UI fetched the OpenAPI document and rendered the operations from it.
    await page.getByText('/v1/screen/batch', { exact: true }).first().waitFor();
    await page.getByText('/v1/screen', { exact: true }).first().click();
    await page.getByRole('button', { name: 'Try it out' }).first().waitFor();
    expect(browser.violations).toEqual([]);
    await page.close();
  });

  it('shows a problem type page that loads and runs nothing', async () => {
    const { api, browser } = started;
    const before = browser.violations.length;
    const page = await browser.newPage();
    const response = await page.goto(`${api.baseUrl}/problems/quota-exceeded`);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.not.toBe('');
    expect(browser.violations.slice(before)).toEqual([]);
    await page.close();
  });
});
