/**
 * A visitor of a rendered website, driven through HTTP (`t.request` with the site's Host): keeps
 * the cookies the site sets (by hand: name → value, dropped when cleared), fetches forms for their
 * CSRF token and posts them url-encoded, as a browser would.
 */
import type { TestApp, TestUser } from './app.js';
import type { Response } from './fixtures.js';

export type Fields = Record<string, string | string[] | undefined>;

export interface SetCookie {
  name: string;
  value: string;
  attributes: string[];
  raw: string;
}

/** Every Set-Cookie of an answer, parsed. */
export function setCookies(res: Response): SetCookie[] {
  const header = res.headers['set-cookie'];
  const all = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
  return all.map((raw) => {
    const [pair, ...attributes] = raw.split(';').map((p) => p.trim());
    const eq = pair.indexOf('=');
    return { name: pair.slice(0, eq), value: decodeURIComponent(pair.slice(eq + 1)), attributes: attributes.map((a) => a.toLowerCase()), raw };
  });
}

export const sessionCookieOf = (res: Response) => setCookies(res).find((c) => c.name === 'customer_session');

/** The CSRF token of the first form of a page. */
export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no CSRF token in the page:\n${html.slice(0, 2000)}`);
  return m[1];
}

export function formBody(fields: Fields): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
  }
  return params.toString();
}

export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly t: TestApp,
    readonly host: string,
    readonly headers: Record<string, string> = {},
  ) {}

  private cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ') } : {};
  }

  private keep(res: Response): Response {
    for (const c of setCookies(res)) {
      if (c.value === '' || c.attributes.includes('max-age=0')) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.keep(await this.t.request('GET', path, { headers: { host: this.host, ...this.headers, ...this.cookieHeader(), ...headers } }));
  }

  async post(path: string, fields: Fields, headers: Record<string, string> = {}): Promise<Response> {
    return this.keep(
      await this.t.request('POST', path, {
        body: formBody(fields),
        headers: { host: this.host, 'content-type': 'application/x-www-form-urlencoded', ...this.headers, ...this.cookieHeader(), ...headers },
      }),
    );
  }

  /** GETs the form page (`from`, default `path`) for its CSRF token, then posts `fields` with it. */
  async submit(path: string, fields: Fields, from = path): Promise<Response> {
    const page = await this.get(from);
    if (page.statusCode !== 200) throw new Error(`GET ${from}: ${page.statusCode}`);
    return this.post(path, { _csrf: csrfOf(page.body), ...fields });
  }

  async signUp(fields: Fields): Promise<Response> {
    return this.submit('/account/sign-up', fields);
  }

  async signIn(email: string, password: string): Promise<Response> {
    return this.submit('/account/sign-in', { email, password });
  }

  async signOut(): Promise<Response> {
    return this.submit('/account/sign-out', {});
  }

  get session(): string | undefined {
    return this.cookies.get('customer_session');
  }
}

/** The site host of a user's website: `{code}.localhost`. */
export async function siteHostOf(t: TestApp, user: TestUser): Promise<string> {
  const website = await t.request('GET', `/tenant-api/v1/websites/${user.websiteId}`, { token: user.token });
  return `${website.json().code}.localhost`;
}
