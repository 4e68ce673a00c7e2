/**
 * The few API calls the bench makes to set itself up (sign-up, hand-off exchange, a second account),
 * over real HTTP on loopback.
 */
import { randomUUID } from 'node:crypto';
import { delay } from './server.js';

export const TENANT = '/tenant-api/v1';
export const SITE = '/site-api/v1';

export interface ApiAnswer {
  status: number;
  body: any;
  text: string;
  ms: number;
}

export interface Api {
  baseUrl: string;
  token?: string;
  call(method: string, path: string, body?: unknown): Promise<ApiAnswer>;
}

export function apiClient(baseUrl: string, token?: string): Api {
  const api: Api = {
    baseUrl,
    token,
    async call(method, path, body) {
      const headers: Record<string, string> = {};
      if (api.token) headers.authorization = `Bearer ${api.token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const started = performance.now();
      const res = await fetch(baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(120_000),
      });
      const text = await res.text();
      const ms = performance.now() - started;
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, text, ms };
    },
  };
  return api;
}

function expect(answer: ApiAnswer, status: number, what: string): any {
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status} ${answer.text.slice(0, 500)}`);
  return answer.body;
}

export interface BenchUser {
  token: string;
  userId: string;
  accountId: string;
  websiteId: string;
  /** `websites/{website}/operations/{operation}` */
  operation: string;
}

/** Signs up through the sign-up surface, trades the hand-off for a bearer token, waits for provisioning. */
export async function signUp(api: Api): Promise<BenchUser> {
  const email = `bench-${randomUUID().slice(0, 8)}@example.com`;
  const answer = expect(
    await api.call('POST', `${SITE}/users`, {
      email,
      password: 'correct-horse-battery-9',
      website_name: 'Bench Site',
      default_language: 'en',
      captcha_token: 'dev-captcha',
    }),
    201,
    'sign-up',
  );
  const exchanged = expect(await api.call('POST', `${TENANT}/users:exchange_handoff`, { signup_token: answer.signup_token }), 200, 'exchange_handoff');
  const token = String(exchanged.token);
  const operation = String(answer.operation);
  const websiteId = operation.split('/')[1];
  api.token = token;
  await waitForOperation(api, operation);
  return { token, userId: String(answer.id), accountId: String(answer.account_id), websiteId, operation };
}

/** Polls an Operation until done (bounded: 60 s); throws when it ends in an error. */
export async function waitForOperation(api: Api, name: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const op = expect(await api.call('GET', `${TENANT}/${name}`), 200, `polling ${name}`);
    if (op.done) {
      if (op.error) throw new Error(`${name} failed: ${JSON.stringify(op.error)}`);
      return;
    }
    await delay(50);
  }
  throw new Error(`${name} was not done within 60 s`);
}

export async function createAccount(api: Api, displayName: string): Promise<string> {
  const account = expect(await api.call('POST', `${TENANT}/accounts`, { display_name: displayName }), 201, 'create account');
  return String(account.id);
}
