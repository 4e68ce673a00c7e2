/** Shared set-up of the blog site tests: a website, its site host, posts written through the tenant API. */
import { expect } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { eventually } from '../support/fixtures-auth.js';
import { API, expectStatus } from '../support/fixtures.js';

export interface BlogSite {
  user: TestUser;
  host: string;
  base: string;
  get(path: string, headers?: Record<string, string>): ReturnType<TestApp['request']>;
  post(body: Record<string, unknown>): Promise<any>;
  create(what: 'blog_categories' | 'blog_tags' | 'blog_authors', body: Record<string, unknown>): Promise<any>;
  view(body: Record<string, unknown>): Promise<string>;
  /** Polls the site until `path` answers `status` (a write reaches the site within the content-version bound). */
  until(path: string, status: number, check?: (body: string) => boolean): Promise<string>;
}

export async function blogSite(t: TestApp, user?: TestUser): Promise<BlogSite> {
  const u = user ?? (await t.signUpProvisioned());
  const code = expectStatus(await t.request('GET', `${API}/websites/${u.websiteId}`, { token: u.token }), 200).code;
  const host = `${code}.localhost`;
  const base = `${API}/websites/${u.websiteId}`;
  const get = (path: string, headers: Record<string, string> = {}) => t.request('GET', path, { headers: { host, ...headers } });
  return {
    user: u,
    host,
    base,
    get,
    post: async (body) => expectStatus(await t.request('POST', `${base}/blog_posts`, { token: u.token, body }), 201),
    create: async (what, body) => expectStatus(await t.request('POST', `${base}/${what}`, { token: u.token, body }), 201),
    view: async (body) => expectStatus(await t.request('POST', `${base}/views`, { token: u.token, body }), 201).id,
    until: (path, status, check = () => true) =>
      eventually(async () => {
        const res = await get(path);
        return res.statusCode === status && check(res.body) ? res.body : undefined;
      }, `${path} to answer ${status}`),
  };
}

/** An ISO time `days` before now (back-dated publishing keeps the order of posts fixed). */
export const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

export function expectNoSecret(body: string, ...secrets: string[]) {
  for (const secret of secrets) expect(body, secret).not.toContain(secret);
}
