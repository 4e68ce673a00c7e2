/**
 * Serves the admin web app (admin/dist, built by build.ts) on the platform host: the routes carry
 * no `site` constraint, so a website's host never reaches them (its own routes answer there).
 * The client routes answer index.html (history fallback: a reload of `/reset-password` or
 * `/w/{id}/r/cms_pages` opens the same app, which routes in the browser); hashed bundles under
 * /assets/ are cached for a year, index.html is revalidated on every load so a new build is
 * picked up at once. Every other path (the API prefixes, /healthz, /readyz, unknown paths) keeps
 * its JSON answers.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { adminDistDir } from './build.js';

/**
 * The first path segments the admin routes in the browser (admin/src/routes.tsx and
 * resource-routes.tsx); a route added there with a new first segment is added here too
 * (test/admin/serving.test.ts checks both lists agree).
 */
export const ADMIN_CLIENT_PATHS = ['/', '/sign-in', '/sign-up', '/handoff', '/forgot-password', '/reset-password', '/confirm-email', '/accept-invitation', '/websites', '/me', '/w/*', '/a/*'] as const;

const YEAR_SECONDS = 31_536_000;

/**
 * Content-Security-Policy of the admin's HTML: its own scripts only, plus the bot-check
 * providers' widgets on sign-up (scripts and frames of Turnstile, hCaptcha, reCAPTCHA). Styles
 * allow inline `style` attributes, which the component kit sets.
 */
const CAPTCHA_ORIGINS = 'https://challenges.cloudflare.com https://js.hcaptcha.com https://*.hcaptcha.com https://www.google.com https://www.gstatic.com';
/**
 * `frameOrigins`: the rendered websites' hosts, which the page and post editors show in a preview
 * frame (the sites name the admin in their `frame-ancestors`).
 */
export const adminCsp = (frameOrigins: readonly string[] = []) => [
  "default-src 'self'",
  `script-src 'self' ${CAPTCHA_ORIGINS}`,
  `frame-src ${[CAPTCHA_ORIGINS, ...frameOrigins].join(' ')}`,
  `connect-src 'self' ${CAPTCHA_ORIGINS}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Where the websites answer, for the preview frame: any subdomain of the platform domain (http on
 * a `localhost` domain, as `website_url` says) and https hosts (custom domains).
 */
export function previewOrigins(platformDomain: string): string[] {
  const local = platformDomain === 'localhost' || platformDomain.endsWith('.localhost');
  return local ? [`http://*.${platformDomain}:*`, 'https:'] : ['https:'];
}

export async function registerAdminApp(app: FastifyInstance, opts: { distDir?: string; frameOrigins?: readonly string[] } = {}): Promise<void> {
  const CSP = adminCsp(opts.frameOrigins);
  const distDir = opts.distDir ?? adminDistDir();
  let index: { html: Buffer; etag: string; mtimeMs: number } | undefined;

  /** index.html, read again when a new build replaced it (a rebuild while the server runs). */
  async function indexHtml() {
    const file = join(distDir, 'index.html');
    const info = await stat(file).catch(() => undefined);
    if (!info) return undefined;
    if (index && index.mtimeMs === info.mtimeMs) return index;
    const html = await readFile(file).catch(() => undefined);
    if (!html) return undefined;
    index = { html, etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`, mtimeMs: info.mtimeMs };
    return index;
  }

  async function serveIndex(request: FastifyRequest, reply: FastifyReply, status = 200) {
    const found = await indexHtml();
    reply.header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
    if (!found) {
      return reply
        .code(503)
        .type('text/html; charset=utf-8')
        .send('<!doctype html><html lang="en"><title>Admin not built</title><h1>The admin web app is not built</h1><p>Run <code>npm start</code> (it builds it) or <code>npm run build -w admin</code>.</p></html>');
    }
    reply.header('content-security-policy', CSP).header('x-frame-options', 'DENY').header('etag', found.etag);
    if (status === 200 && request.headers['if-none-match'] === found.etag) return reply.code(304).send();
    return reply.code(status).type('text/html; charset=utf-8').send(found.html);
  }

  for (const path of ADMIN_CLIENT_PATHS) app.get(path, { schema: { hide: true } }, (request, reply) => serveIndex(request, reply));

  const assets = join(distDir, 'assets');
  if (existsSync(assets)) {
    await app.register(fastifyStatic, {
      root: assets,
      prefix: '/assets/',
      // File names carry their content hash (Vite): a changed file is a new URL.
      immutable: true,
      maxAge: YEAR_SECONDS * 1000,
      index: false,
      etag: false,
      lastModified: false,
      decorateReply: false,
      schemaHide: true,
    });
  }
}
