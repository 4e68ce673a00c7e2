/**
 * The admin web app in a real browser: the admin built if stale (the same `ensureAdminBuilt` as
 * `npm start`), the real platform on a fresh database of the project's dialect listening on a free
 * port (PUBLIC_BASE_URL is that origin, so mailed links point at it), and Debian's Chromium
 * headless through playwright-core. One per test file (a browser start costs a second or two):
 *
 *   const a = await startAdminBrowser();
 *   const page = await a.newPage();              // a fresh context: no storage, no session
 *   await page.goto(`${a.origin}/sign-in`);
 *   await a.expectAccessible(page, 'sign-in');   // axe-core: WCAG 2.0/2.1/2.2 A and AA
 *   const link = await a.mailedLink('alice@example.com', '/reset-password');
 *   await a.close();
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { simpleParser } from 'mailparser';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ensureAdminBuilt } from '../../src/admin-app/build.js';
import { startTestApp, type TestApp } from './app.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export interface AdminBrowser {
  t: TestApp;
  /** `http://127.0.0.1:{port}`: the platform host, where the admin answers. */
  origin: string;
  browser: Browser;
  /** A page in a new browser context (its own storage: not signed in). */
  newPage(): Promise<Page>;
  /** Fails with axe's findings when the page has any WCAG A/AA violation. */
  expectAccessible(page: Page, screen: string): Promise<void>;
  /** The first link to `path` in the newest mail to `to` in DATA_DIR/outbox (waits for the mail worker). */
  mailedLink(to: string, path: string): Promise<string>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startAdminBrowser(env: Record<string, string> = {}): Promise<AdminBrowser> {
  await ensureAdminBuilt();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ PUBLIC_BASE_URL: origin, ...env });
  await t.app.listen({ host: '127.0.0.1', port });
  const profile = await mkdtemp(join(tmpdir(), 'admin-chromium-'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, `--user-data-dir=${profile}`] }).catch(async () =>
    // Playwright manages the profile itself on some versions (refuses --user-data-dir): its own temp profile is new too.
    chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS }),
  );
  const contexts: BrowserContext[] = [];
  return {
    t,
    origin,
    browser,
    async newPage() {
      const context = await browser.newContext({ baseURL: origin });
      contexts.push(context);
      const page = await context.newPage();
      // The app's own failures show in the test output (a blank screen says nothing).
      page.on('pageerror', (err) => console.error(`[admin page error] ${err.message}`));
      page.on('console', (m) => m.type() === 'error' && console.error(`[admin console] ${m.text()}`));
      return page;
    },
    async expectAccessible(page, screen) {
      // Colours are read as drawn: a dialog still fading in (or out) has lower contrast than the
      // screen a person reads, so running transitions end first (finite ones only).
      await page.evaluate(() =>
        Promise.all(document.getAnimations().filter((x) => x.effect?.getComputedTiming().endTime !== Infinity).map((x) => x.finished.catch(() => undefined))),
      );
      const result = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
      const found = result.violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join('\n    ')}`);
      expect(found, `axe on ${screen}`).toEqual([]);
    },
    async mailedLink(to, path) {
      const dir = join(t.config.dataDir, 'outbox');
      for (let i = 0; i < 200; i++) {
        const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml'));
        const mails = await Promise.all(files.map(async (f) => simpleParser(await readFile(join(dir, f)))));
        const matching = mails.filter((m) => JSON.stringify(m.to).includes(to)).sort((a, b) => (b.date?.getTime() ?? 0) - (a.date?.getTime() ?? 0));
        for (const mail of matching) {
          const link = new RegExp(`https?://[^\\s"'<>]+${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}#token=[^\\s"'<>]+`).exec(mail.text ?? '');
          if (link) return link[0];
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no mail to ${to} with a link to ${path}`);
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await t.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Signs `page` in through the sign-in screen and waits until it left it. */
export async function signInPage(a: AdminBrowser, page: Page, user: { email: string; password: string }, path = '/sign-in'): Promise<void> {
  await page.goto(`${a.origin}${path}`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByRole('textbox', { name: 'Password' }).fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/sign-in' && url.pathname !== '/');
}

/**
 * Waits until the keyboard focus is inside `target`: a dialog that hands focus back (e.g. to a rich
 * text editor) does so a frame or two after it left the page, and keys pressed before land elsewhere.
 */
/**
 * Selects `word` inside `paragraph` as a person does: a double-click on it, again if the page moved
 * the selection meanwhile (an editor handing focus back after a dialog restores its own selection a
 * frame later), until the document's selection is exactly that word.
 */
export async function selectWord(paragraph: Locator, word: string): Promise<void> {
  const page = paragraph.page();
  for (let attempt = 0; attempt < 5; attempt++) {
    const box = await paragraph.evaluate((el, w) => {
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.textContent!.indexOf(w);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + w.length);
        const r = range.getBoundingClientRect();
        return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
      }
      return null;
    }, word);
    if (!box) throw new Error(`"${word}" is not in the paragraph`);
    await page.mouse.dblclick(box.x, box.y);
    // Two frames: a focus restore scheduled for the next frame has run by then.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    if ((await page.evaluate(() => document.getSelection()?.toString().trim())) === word) return;
  }
  throw new Error(`a double-click did not select "${word}"`);
}

/**
 * docs/screenshots/{name}-desktop.png (1280 wide) and {name}-phone.png (390 wide) of what `page`
 * shows, full page. Only with UPDATE_SCREENSHOTS=1, so a test run leaves the tree clean. With
 * `ready`, the phone layout comes from a reload at that width (no drawer mid-transition), awaited by
 * `ready`; without it, two animation frames after each resize let charts and layouts redraw.
 */
export async function screenshotWidths(page: Page, name: string, ready?: () => Promise<unknown>): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  await mkdir('docs/screenshots', { recursive: true });
  const size = page.viewportSize();
  const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  for (const [suffix, width, height] of [['desktop', 1280, 900], ['phone', 390, 844]] as const) {
    await page.setViewportSize({ width, height });
    if (ready && suffix === 'phone') {
      await page.reload();
      await ready();
    }
    await settle();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `docs/screenshots/${name}-${suffix}.png`, fullPage: true });
  }
  if (size) await page.setViewportSize(size);
}
