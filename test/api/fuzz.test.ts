/**
 * A fuzz of every route, derived from the OpenAPI documents the app serves (tenant, sign-up and
 * engine surfaces): for each operation, seeded hostile requests — wrong types, NUL and other control
 * characters, lone surrogates, huge values, unknown fields, deep nesting, garbage filters, page
 * tokens and query values, hostile path ids (the other tenant's real ids among them), other
 * tenants' tokens, bad content types.
 *
 * It fails on any 5xx, on any error answer that is not the canonical body (code and status
 * agreeing, REQUEST_INFO equal to x-request-id), and on any 2xx that carries the other tenant's data
 * or answers for a path naming the other tenant's ids. Deterministic (one seed) and bounded: a fixed
 * number of requests per operation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { canonicalErrorProblem } from '../support/canonical.js';
import { HOSTILE_PATH_SEGMENTS, hostileBody, hostileQueryValue, hostileValue, operationsOf, plausible, seeded, type Operation, type Rng } from '../support/fuzz.js';
import { multipart, png } from '../support/media.js';
import { standinEnv, startProviderStandin, type ProviderStandin } from '../support/provider-standin.js';

const SEED = 0x5eed_2026;
const CASES_PER_OPERATION = 20;
const API = '/tenant-api/v1';

let t: TestApp;
let standin: ProviderStandin;
let alice: TestUser;
let bob: TestUser;

/** Everything one tenant owns that the fuzz can name: ids by path parameter, and every id seen. */
interface Holdings {
  user: TestUser;
  params: Map<string, string[]>;
  ids: Set<string>;
}
let holdings: Record<'alice' | 'bob', Holdings>;

/** encodeURIComponent that also sends lone surrogates, as a hostile client would (CESU-8 bytes). */
function encodeLoose(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    else out += encodeURIComponent(char);
  }
  return out;
}

/** Best-effort seed data for one tenant, so most collections have rows with real ids. */
async function seed(user: TestUser): Promise<void> {
  const as = (method: string, url: string, body?: unknown) => t.request(method, url, { token: user.token, body });
  const account = `${API}/accounts/${user.accountId}`;
  const site = `${API}/websites/${user.websiteId}`;
  const json = async (p: Promise<Awaited<ReturnType<TestApp['request']>>>) => {
    const res = await p;
    return res.statusCode < 300 ? res.json() : undefined;
  };
  const instruction = await json(as('POST', `${account}/ai_instructions`, { display_name: 'Writer', variables: ['topic'], content: 'Write about {{topic}}.' }));
  const agent = instruction && (await json(as('POST', `${account}/ai_agents`, { display_name: 'Agent', instruction_id: instruction.id, preferred_model_id: 'gpt-5' })));
  if (agent) await as('POST', `${account}/ai_executions`, { agent_id: agent.id, input: { variables: { topic: 'x' } } });
  await as('POST', `${account}/ai_connections`, { provider: 'anthropic', api_key: 'sk-fuzz-key' });
  await as('POST', `${account}/projects`, { display_name: 'Fuzz project' });
  await as('POST', `${site}/cms_blocks`, { title: 'Block', identifier: 'fuzz-block', content: '<p>x</p>' });
  await as('POST', `${site}/cms_pages`, { title: 'Page', url_key: 'fuzz-page' });
  await as('POST', `${site}/customer_groups`, { display_name: 'Group' });
  const section = await json(as('POST', `${site}/customer_attribute_groups`, { display_name: 'Section' }));
  await as('POST', `${site}/customer_attributes`, { key: 'fuzz_key', display_name: 'Key', type: 'TEXT', ...(section && { attribute_group_id: section.id }) });
  await as('POST', `${site}/customers`, { email: `customer-${user.userId}@example.com`, password: 'secret-123' });
  await as('POST', `${site}/media_folders`, { display_name: 'Folder' });
  await as('POST', `${site}/views`, { display_name: 'Second view', locale: 'de' });
  // The blog: a category tree, a tag, an author, a post linking them (so it has a revision), and overlays.
  const category = await json(as('POST', `${site}/blog_categories`, { display_name: 'Fuzz category' }));
  if (category) await as('POST', `${site}/blog_categories`, { display_name: 'Fuzz child', parent_id: category.id });
  const tag = await json(as('POST', `${site}/blog_tags`, { display_name: 'Fuzz tag' }));
  const author = await json(as('POST', `${site}/blog_authors`, { display_name: 'Fuzz author' }));
  const blogPost = await json(
    as('POST', `${site}/blog_posts`, { title: 'Fuzz post', content: '<p>x</p>', category_ids: category ? [category.id] : [], tag_ids: tag ? [tag.id] : [], author_ids: author ? [author.id] : [] }),
  );
  const defaultView = (await json(as('GET', `${site}/views`)))?.views?.[0];
  if (defaultView) {
    for (const r of [blogPost, category, tag, author]) if (r) await as('PATCH', `${API}/${r.name}/views/${defaultView.id}?allow_missing=true`, r === author ? { bio: 'x' } : r === blogPost ? { title: 'x' } : { display_name: 'x' });
  }
  const { body, contentType } = multipart([{ name: 'file', filename: 'fuzz.png', data: await png(8, 8) }]);
  await t.app.inject({ method: 'POST', url: `${site}/media`, headers: { authorization: `Bearer ${user.token}`, 'content-type': contentType }, payload: body });
}

/** Walks every List of the tenant document as `user`, collecting the ids each item path parameter takes. */
async function collect(user: TestUser, ops: Operation[]): Promise<Holdings> {
  const params = new Map<string, string[]>([
    ['account_id', [user.accountId]],
    ['website_id', [user.websiteId]],
    ['operation_id', [user.operation.split('/').pop()!]],
  ]);
  const ids = new Set<string>([user.accountId, user.websiteId, user.userId, user.operation.split('/').pop()!]);
  const lists = ops.filter((op) => op.method === 'GET' && op.operationId.startsWith('List')).sort((a, b) => a.path.split('/').length - b.path.split('/').length);
  // Twice: the first round finds parents (projects, pages, menus) whose children the second round lists.
  for (let round = 0; round < 2; round++) {
    for (const op of lists) {
      const filled = fill(op.path, (name) => params.get(name)?.[0]);
      if (!filled) continue;
      const res = await t.request('GET', `${filled}?page_size=100`, { token: user.token });
      if (res.statusCode !== 200) continue;
      const collection = op.path.split('/').pop()!;
      const items: any[] = res.json()[collection] ?? [];
      // The item path: right under the List's path, or (projects, websites) addressed on their own.
      const itemPath =
        ops.find((o) => o.path.startsWith(`${op.path}/{`) && o.path.split('/').length === op.path.split('/').length + 1) ??
        ops.find((o) => o.path === `${API}/${collection}/${o.path.split('/').pop()}` && /^\{.+\}$/.test(o.path.split('/').pop()!));
      const param = itemPath?.path.split('/').pop()!.slice(1, -1);
      for (const item of items) {
        if (typeof item.id === 'string') ids.add(item.id);
        if (param && typeof item.id === 'string') {
          const known = params.get(param) ?? [];
          if (!known.includes(item.id)) params.set(param, [...known, item.id]);
        }
      }
    }
  }
  return { user, params, ids };
}

/** `path` with its `{param}`s replaced, or undefined when one has no value. */
function fill(path: string, value: (name: string) => string | undefined): string | undefined {
  let missing = false;
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = value(name);
    if (v === undefined) missing = true;
    return v ?? '';
  });
  return missing ? undefined : filled;
}

interface Finding {
  request: string;
  status: number;
  problem: string;
}

beforeAll(async () => {
  standin = await startProviderStandin();
  // DNS asked of a closed local port: a custom domain :verify answers at once, whatever it answers.
  t = await startTestApp({ ...standinEnv(standin), DNS_RESOLVER: '127.0.0.1:9', DNS_TIMEOUT_MS: '200' });
  [alice, bob] = await Promise.all([t.signUpProvisioned(), t.signUpProvisioned()]);
  await Promise.all([seed(alice), seed(bob)]);
  const tenant = operationsOf((await t.request('GET', `${API}/openapi.json`)).json());
  const [a, b] = await Promise.all([collect(alice, tenant), collect(bob, tenant)]);
  holdings = { alice: a, bob: b };
}, 120_000);
afterAll(async () => {
  await t?.close();
  await standin?.close();
});

describe('route fuzz', () => {
  it('no hostile request to any operation of any surface answers 5xx, a non-canonical error, or the other tenant’s data', { timeout: 300_000 }, async () => {
    const docs = await Promise.all(['/tenant-api/v1', '/site-api/v1', '/engine-api/v1'].map(async (prefix) => (await t.request('GET', `${prefix}/openapi.json`)).json()));
    const operations = docs.flatMap((doc) => operationsOf(doc));
    expect(operations.length).toBeGreaterThan(100);
    // Writes that end a tenant's access (deletes, sign-out) go last, so the rest of the fuzz still reaches the handlers.
    const last = (op: Operation) => (op.operationId === 'SignOutEverywhere' ? 3 : ['DeleteAccount', 'DeleteProject', 'DeleteWebsite'].includes(op.operationId) ? 2 : op.method === 'DELETE' ? 1 : 0);
    operations.sort((x, y) => last(x) - last(y));

    const rng = seeded(SEED);
    const findings: Finding[] = [];
    let sent = 0;
    for (const op of operations) {
      for (let i = 0; i < CASES_PER_OPERATION; i++) {
        const c = hostileCase(op, rng);
        const res = await t.app.inject({ method: c.method as never, url: c.url, headers: c.headers, payload: c.payload });
        sent++;
        const request = `${c.label} ${c.method} ${c.url.slice(0, 200)}`;
        if (res.statusCode >= 500) findings.push({ request, status: res.statusCode, problem: res.body.slice(0, 300) });
        else if (res.statusCode >= 400) {
          const problem = canonicalErrorProblem(res);
          if (problem) findings.push({ request, status: res.statusCode, problem });
        } else if (res.statusCode < 300 && c.other && !op.path.startsWith('/engine-api/')) {
          // The engine surface is the public media read: bytes by id, for everyone, by design.
          const leak = leakOf(c, res.body);
          if (leak) findings.push({ request, status: res.statusCode, problem: leak });
        }
      }
    }
    console.log(`route fuzz: ${operations.length} operations, ${sent} requests, ${findings.length} findings`);
    expect(findings.slice(0, 40), `${findings.length} findings`).toEqual([]);
  });
});

interface Case {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  /** The tenant whose data this request must not see (the one whose token was not used). */
  other?: Holdings;
  /** Other-tenant ids placed in the path. */
  foreignInPath: string[];
}

/**
 * One hostile request for `op`. Each case aims at one part (the caller, one path id, one query
 * parameter, the body) and keeps the rest as a valid request would have it, so the hostile part
 * gets past everything else and reaches the handler and the database.
 */
function hostileCase(op: Operation, rng: Rng): Case {
  const takesBody = Boolean(op.jsonBody || op.multipartBody);
  const focus = rng.pick([
    ...(takesBody ? ['body', 'body', 'body'] : []),
    ...(op.pathParams.length ? ['path', 'path'] : []),
    ...(op.query.length ? ['query', 'query'] : []),
    'caller',
    'extras',
  ] as const);
  const caller = focus === 'caller' ? rng.pick([holdings.bob, undefined]) : holdings.alice;
  const owner = holdings.alice;
  const other = caller === holdings.alice ? holdings.bob : caller === holdings.bob ? holdings.alice : undefined;
  const headers: Record<string, string> = {};
  if (caller) headers.authorization = `Bearer ${caller.user.token}`;
  const labels: string[] = [caller === holdings.alice ? 'alice' : caller ? 'bob' : 'anonymous', `on ${focus}`];
  const foreignInPath: string[] = [];

  const target = focus === 'path' ? rng.pick(op.pathParams) : undefined;
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const mine = owner.params.get(name) ?? [];
    if (name !== target && mine.length > 0) return encodeURIComponent(rng.pick(mine));
    const theirs = (holdings.bob.params.get(name) ?? []).filter((id) => !owner.ids.has(id));
    if (name === target && theirs.length > 0 && rng.chance(0.4)) {
      const id = rng.pick(theirs);
      foreignInPath.push(id);
      labels.push(`foreign ${name}`);
      return encodeURIComponent(id);
    }
    labels.push(`hostile ${name}`);
    return rng.pick(HOSTILE_PATH_SEGMENTS);
  });

  const query: string[] = [];
  if (focus === 'query') {
    const param = rng.pick(op.query);
    query.push(`${param.name}=${encodeLoose(hostileQueryValue(param.name, param.schema, rng))}`);
    labels.push(`query ${param.name}`);
  }
  if (focus === 'extras' && rng.chance(0.5)) query.push(`${encodeLoose(rng.pick(['unknown', 'x\u0000', '__proto__']))}=${encodeLoose(rng.pick(['1', '\u0000', '']))}`);

  let payload: string | Buffer | undefined;
  if (op.jsonBody) {
    const schema = op.jsonBody;
    let body: unknown;
    if (focus === 'body') body = hostileBody(schema, rng);
    else if (op.method === 'PATCH') body = {};
    else body = Object.fromEntries((schema.required ?? []).map((name: string) => [name, plausible(schema.properties?.[name], rng)]));
    payload = typeof body === 'string' && /^[[{"\dn]/.test(body) ? body : JSON.stringify(body);
    headers['content-type'] =
      focus !== 'body' || rng.chance(0.9) ? rng.pick(['application/json', 'application/json; charset=utf-8']) : rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']);
  } else if (op.multipartBody) {
    // Either the plain parts are hostile and the file is fine, or the other way round.
    const hostileFile = focus === 'body' && rng.chance(0.4);
    const hostileFields = focus === 'body' && !hostileFile;
    const fields = Object.keys(op.multipartBody.properties ?? {}).filter((name) => name !== 'file');
    const aimed = hostileFields ? rng.pick(fields) : undefined;
    const parts: any[] = fields
      // Only the aimed part: a plausible value for the others (a folder_id) would itself be refused.
      .filter((name) => name === aimed)
      .map((name) => ({ name, value: name === aimed ? String(rng.pick(['\u0000', 'a\u0000b', 'ok\u0000', 'x'.repeat(5000), '\u0001', '\ud800'])) : 'ok' }));
    parts.push(
      hostileFile
        ? { name: rng.pick(['file', 'other']), filename: rng.pick(['a.png', '\u0000.png', '../../x.png', 'x'.repeat(300)]), data: Buffer.from(rng.pick(['not an image', '\u0000\u0000', ''])) }
        : { name: 'file', filename: 'notes.txt', data: Buffer.from('plain text') },
    );
    const built = multipart(parts);
    payload = built.body;
    headers['content-type'] = focus !== 'body' || rng.chance(0.85) ? built.contentType : 'multipart/form-data';
  } else if (focus === 'extras' && op.method !== 'GET') {
    payload = JSON.stringify(hostileValue(rng));
    headers['content-type'] = 'application/json';
  }
  if (focus === 'extras' || rng.chance(0.05)) headers['if-match'] = rng.pick(['"stale"', '*', 'W/"x"', '"', 'a, b, c']);
  if (focus === 'extras' && rng.chance(0.5)) headers['x-request-id'] = rng.pick(['client-id-1', 'bad id', 'x'.repeat(200)]);

  const url = path + (query.length ? `?${query.join('&')}` : '');
  return { label: labels.join(', '), method: op.method, url, headers, payload, other, foreignInPath };
}

/** Whether a 2xx answer shows the other tenant's data: their ids in the body, or a path that named them. */
function leakOf(c: Case, body: string): string | undefined {
  if (c.foreignInPath.length > 0) return `answered 2xx for the other tenant's ${c.foreignInPath.join(', ')}`;
  const own = c.other === holdings.alice ? holdings.bob : holdings.alice;
  for (const id of c.other!.ids) {
    // Ids both tenants have (catalogue entries, fixed names such as email template kinds) reveal nothing.
    if (own.ids.has(id) || id.length < 12) continue;
    if (body.includes(id)) return `body carries the other tenant's id ${id}`;
  }
  if (body.includes(c.other!.user.email)) return "body carries the other tenant's email";
  return undefined;
}
