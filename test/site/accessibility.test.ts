/**
 * Issue 15, "Valid, accessible HTML", and issue 26, "Rendered websites people want to visit": the
 * rendered pages (ACCESSIBILITY_PAGES) pass axe-core's WCAG 2.0/2.1 A and AA rules in a real
 * browser, in the light and in the dark colour scheme (`prefers-color-scheme`): the app on a real
 * port, Debian's Chromium headless through playwright-core (one browser for the file), axe-core
 * injected into each page. Pages marked `screenshot` are also photographed at phone and desktop
 * widths into test-results/site-screenshots/ and attached to the test (looked at, not compared).
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESSIBILITY_PAGES, type AccessibilityFixture } from '../support/accessibility-pages.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';

const require = createRequire(import.meta.url);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const SCREENSHOTS = join(process.cwd(), 'test-results', 'site-screenshots', process.env.TEST_DIALECT ?? 'sqlite');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

describe('accessibility of the rendered site (axe-core, WCAG 2.1 A/AA), light and dark', () => {
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
    // The media's public URLs name the platform's host (PUBLIC_BASE_URL): mapped to this app, so images load.
    const media = new URL(t.config.publicBaseUrl).hostname;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [`--host-resolver-rules=MAP *.localhost 127.0.0.1, MAP ${media} 127.0.0.1:${port}`] });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.for(ACCESSIBILITY_PAGES.map((p) => [p.name, p] as const))('%s has no WCAG A/AA violations in the light and the dark colour scheme', async ([, page], { annotate }) => {
    const context = await browser.newContext({ bypassCSP: true, viewport: DESKTOP });
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
      const violations: unknown[] = [];
      for (const colorScheme of ['light', 'dark'] as const) {
        await tab.emulateMedia({ colorScheme });
        const found = await tab.evaluate(async (tags) => {
          const axe = (globalThis as any).axe;
          const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
          return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n: any) => n.html).slice(0, 5) }));
        }, WCAG_TAGS);
        violations.push(...found.map((v: object) => ({ colorScheme, ...v })));
      }
      expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);

      if (page.screenshot) {
        mkdirSync(SCREENSHOTS, { recursive: true });
        const slug = page.name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase();
        for (const [width, viewport, colorScheme] of [['desktop', DESKTOP, 'light'], ['phone', PHONE, 'light'], ['phone', PHONE, 'dark']] as const) {
          await tab.setViewportSize(viewport);
          await tab.emulateMedia({ colorScheme });
          const path = join(SCREENSHOTS, `${slug}-${width}-${colorScheme}.png`);
          await tab.screenshot({ path, fullPage: true });
          await annotate(`${page.name}, ${width}, ${colorScheme}`, { path, contentType: 'image/png' });
        }
      }
    } finally {
      await context.close();
    }
  });
});
