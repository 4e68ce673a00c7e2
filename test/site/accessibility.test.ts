/**
 * Issue 15, "Valid, accessible HTML": the rendered pages (ACCESSIBILITY_PAGES) pass axe-core's
 * WCAG 2.0/2.1 A and AA rules in a real browser: the app on a real port, Debian's Chromium
 * headless through playwright-core, axe-core injected into each page.
 *
 * Runs in the SQLite project only: the site renders the same HTML from either database (the
 * reads themselves are tested on both in the other test/site files), and a browser run per
 * project would double the slowest file of the suite for nothing.
 */
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESSIBILITY_PAGES, type AccessibilityFixture } from '../support/accessibility-pages.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';

const require = createRequire(import.meta.url);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

describe.runIf(process.env.TEST_DIALECT === 'sqlite')('accessibility of the rendered site (axe-core, WCAG 2.1 A/AA)', () => {
  let t: TestApp;
  let browser: Browser;
  let origin: string;
  let fixture: AccessibilityFixture;
  const paths = new Map<string, string>();

  beforeAll(async () => {
    t = await startTestApp();
    const user = await t.signUpProvisioned();
    const deViewId = expectStatus(
      await t.request('POST', `${API}/websites/${user.websiteId}/views`, { token: user.token, body: { display_name: 'Deutsch', locale: 'de', url_prefix: 'de' } }),
      201,
    ).id;
    fixture = { t, user, deViewId };
    for (const page of ACCESSIBILITY_PAGES) paths.set(page.name, await page.setup(fixture));
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const code = expectStatus(await t.request('GET', `${API}/websites/${user.websiteId}`, { token: user.token }), 200).code;
    origin = `http://${code}.localhost:${port}`;
    // *.localhost is loopback in Chromium already; the rule makes it so whatever the resolver.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--host-resolver-rules=MAP *.localhost 127.0.0.1'] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each(ACCESSIBILITY_PAGES.map((p) => [p.name, p] as const))('%s has no WCAG A/AA violations', async (_name, page) => {
    const context = await browser.newContext({ bypassCSP: true });
    try {
      const tab = await context.newPage();
      // The site's content changes reach it within SITE_VERSION_TTL_MS: load until the page answers as it must.
      let status = 0;
      for (let i = 0; i < 100 && status !== page.status; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 25));
        status = (await tab.goto(`${origin}${paths.get(page.name)}`, { waitUntil: 'load' }))?.status() ?? 0;
      }
      expect(status).toBe(page.status);
      await tab.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
      const violations = await tab.evaluate(async (tags) => {
        const axe = (globalThis as any).axe;
        const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
        return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => n.html).slice(0, 5) }));
      }, WCAG_TAGS);
      expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
