import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectStatus } from '../support/fixtures.js';
import { eventually, expectCanonical, siteUnderTest, type SiteUnderTest } from './agents-support.js';

/**
 * A `fetch` that reaches `{code}.localhost:{port}` on 127.0.0.1 and keeps the Host header, so the
 * SDK's own client talks to the app listening on a real port as it would through DNS.
 */
function loopbackFetch(port: number): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    headers.host = url.host;
    const body = typeof init.body === 'string' ? init.body : undefined;
    return new Promise<Response>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: init.method ?? 'GET', path: url.pathname + url.search, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const out = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) out.set(name, Array.isArray(value) ? value.join(', ') : value);
          const status = res.statusCode ?? 500;
          resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: out }));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      init.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')));
      req.end(body);
    });
  }) as typeof fetch;
}

/** Issue 15, "/mcp": a read-only MCP server on every site, Streamable HTTP, Origin/Host checked. */
describe('site MCP server', () => {
  let t: TestApp;
  let a: SiteUnderTest;
  let b: SiteUnderTest;
  let port: number;

  const connect = async (site: SiteUnderTest) => {
    const client = new Client({ name: 'agents-mcp-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://${site.host}:${port}/mcp`), { fetch: loopbackFetch(port) }));
    return client;
  };
  const json = (result: any) => {
    expect(result.isError ?? false).toBe(false);
    return JSON.parse(result.content[0].text);
  };

  beforeAll(async () => {
    t = await startTestApp();
    a = await siteUnderTest(t, 'Alpha Bakery');
    b = await siteUnderTest(t, 'Beta Garage');
    expectStatus(await a.api('POST', '/cms_pages', { title: 'About us', url_key: 'about', content: '<p>We bake.</p>' }), 201);
    expectStatus(await a.api('POST', '/cms_pages', { title: 'Secret', url_key: 'secret', is_active: false }), 201);
    expectStatus(await a.api('POST', '/blog_posts', { title: 'New loaf', url_key: 'new-loaf', state: 'PUBLISHED', content: '<p>Fresh</p>' }), 201);
    expectStatus(await a.api('POST', '/blog_posts', { title: 'Draft', url_key: 'draft' }), 201);
    expectStatus(await b.api('POST', '/cms_pages', { title: 'Beta only', url_key: 'beta-only' }), 201);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('tools/list names the six read-only tools', async () => {
    const client = await connect(a);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_navigation', 'get_page', 'get_post', 'list_pages', 'list_posts', 'search']);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
    expect(client.getServerVersion()?.name).toBe(`${a.code}-site`);
    await client.close();
  });

  it('each tool answers published content of its own site only', async () => {
    const client = await connect(a);
    const pages = await eventually(async () => {
      const p = json(await client.callTool({ name: 'list_pages', arguments: {} }));
      expect(p.pages.map((x: any) => x.url_key)).toContain('about');
      return p;
    });
    expect(pages.pages.map((x: any) => x.url_key)).toEqual(['about', 'home']);
    expect(json(await client.callTool({ name: 'get_page', arguments: { url_key: 'about' } }))).toMatchObject({ title: 'About us', content: '<p>We bake.</p>', url: `http://${a.host}:${port}/about` });
    expect(json(await client.callTool({ name: 'list_posts', arguments: { page_size: 10 } })).posts.map((x: any) => x.url_key)).toEqual(['new-loaf']);
    expect(json(await client.callTool({ name: 'get_post', arguments: { url_key: 'new-loaf' } })).content).toBe('<p>Fresh</p>');
    expect(json(await client.callTool({ name: 'get_navigation', arguments: { identifier: 'main' } })).items[0]).toMatchObject({ label: 'Home', href: '/' });

    for (const [name, args] of [
      ['get_page', { url_key: 'secret' }],
      ['get_page', { url_key: 'beta-only' }],
      ['get_post', { url_key: 'draft' }],
      ['get_navigation', { identifier: 'nope' }],
      ['list_pages', { view: 'no-such-view' }],
      ['list_pages', { page_token: 'garbage' }],
    ] as const) {
      const result: any = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
    }
    await client.close();

    const other = await connect(b);
    expect(json(await other.callTool({ name: 'list_pages', arguments: {} })).pages.map((x: any) => x.url_key)).toEqual(['beta-only', 'home']);
    await other.close();
  });

  it('a foreign Origin is refused with 403 in the canonical body; the site\'s own Origin is served', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const origin of ['https://evil.example', 'http://localhost', `http://${b.host}`, 'null', 'not a url']) {
      expectCanonical(await a.site('POST', '/mcp', { headers: { ...headers, origin }, body }), 403, 'PERMISSION_DENIED');
    }
    const own = await a.site('POST', '/mcp', { headers: { ...headers, origin: `http://${a.host}` }, body });
    expect(own.statusCode).toBe(200);
    expect(own.json().result.tools.length).toBe(6);
  });

  it('garbage gets a clean 4xx: bad JSON, not JSON-RPC, wrong content type, GET and DELETE', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expectCanonical(await a.site('POST', '/mcp', { headers, body: '{"jsonrpc": ' }), 400, 'INVALID_ARGUMENT', 'body');
    // An empty batch carries no request: nothing to answer (202, as for notifications), never a 5xx.
    expect((await a.site('POST', '/mcp', { headers, body: [] })).statusCode).toBeLessThan(500);
    for (const body of [{ hello: 'world' }, 42, { jsonrpc: '2.0', id: 1, method: 'no/such/method' }]) {
      const res = await a.site('POST', '/mcp', { headers, body });
      expect(res.statusCode, JSON.stringify(body)).toBeLessThan(500);
      expect(res.statusCode === 200 ? res.json().error : res.statusCode >= 400, JSON.stringify(body)).toBeTruthy();
    }
    const text = await a.site('POST', '/mcp', { headers: { 'content-type': 'text/plain', accept: 'application/json' }, body: 'hello' });
    expect(text.statusCode).toBeGreaterThanOrEqual(400);
    expect(text.statusCode).toBeLessThan(500);
    expectCanonical(await a.site('GET', '/mcp'), 405, 'UNIMPLEMENTED');
    expectCanonical(await a.site('DELETE', '/mcp'), 405, 'UNIMPLEMENTED');
  });
});
