import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ApiError, MethodNotAllowed, NotFound, PermissionDenied } from '../../platform/errors.js';
import type { SiteContext, SiteDeps, SiteSearch } from '../../platform/area.js';
import type { SiteContent } from './content.js';
import { enabled } from './signals.js';

export const MCP_PATH = '/mcp';

// The MCP SDK and zod are loaded with the first /mcp call: some 30 MB of a server that may never
// get one (idle RSS, issue 24).
let sdkModules: Promise<{ McpServer: typeof McpServer; Transport: typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js').WebStandardStreamableHTTPServerTransport; z: typeof import('zod') }> | undefined;
const loadSdk = () =>
  (sdkModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'), import('zod')]).then(
    ([mcp, http, z]) => ({ McpServer: mcp.McpServer, Transport: http.WebStandardStreamableHTTPServerTransport, z }),
  ));

/**
 * DNS-rebinding protection (MCP transport spec, "Security Warning"): the `Host` already named this
 * site (the site constraint chose the website by it); an `Origin`, when a browser sends one, must be
 * this very site — scheme-less comparison of host and port, since TLS may end at a proxy.
 */
export function checkOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (!host || host.toLowerCase() !== String(request.headers.host ?? '').toLowerCase()) {
    throw new PermissionDenied('the Origin of this request is not this site; /mcp answers only its own site and non-browser clients');
  }
}

/** The read-only tools of a site's MCP server, answering what the read API answers (content.ts). */
function mcpServerFor(ctx: SiteContext, content: SiteContent, search: SiteSearch | undefined, sdk: Awaited<ReturnType<typeof loadSdk>>): McpServer {
  const { McpServer, z } = sdk;
  const server = new McpServer(
    { name: `${ctx.website.code}-site`, title: ctx.website.displayName, version: '1.0.0' },
    { instructions: `Read-only access to the published pages, blog posts and navigation of ${ctx.origin}. Views (languages) are named by id; omit \`view\` for the default view.` },
  );
  const view = z.string().max(64).optional().describe('Id of an active view of the site; default: the default view.');
  const paging = {
    view,
    page_size: z.number().int().min(0).max(1000).optional().describe('Items per page, 1 to 100 (0 or absent: 50).'),
    page_token: z.string().max(4096).optional().describe('next_page_token of the previous call.'),
  };
  const urlKey = z.string().min(1).max(255).describe('URL key of the page or post (e.g. `about`, `company/team`).');
  const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
  const answer = async (read: () => Promise<unknown>) => {
    try {
      const result = await read();
      return { content: [{ type: 'text' as const, text: JSON.stringify(result, null, 2) }] };
    } catch (err) {
      // Bad arguments and unknown keys are the caller's to fix, told as a tool error; anything else is ours.
      if (err instanceof ApiError && err.httpCode < 500) return { isError: true, content: [{ type: 'text' as const, text: `${err.status}: ${err.message}` }] };
      throw err;
    }
  };
  const found = <T>(what: string, value: T | undefined): T => {
    if (value === undefined) throw new NotFound(what);
    return value;
  };
  const summary = <T extends { content?: string }>(item: T) => {
    const { content: _content, ...rest } = item;
    return rest;
  };

  server.registerTool(
    'list_pages',
    { title: 'List pages', description: 'Published pages of the site in a view, ordered by url_key (without their content; use get_page).', inputSchema: paging, annotations: readOnly },
    (args) => answer(async () => {
      const { items, next_page_token } = await content.listPages(ctx, args);
      return { pages: items.map(summary), next_page_token };
    }),
  );
  server.registerTool(
    'get_page',
    { title: 'Read a page', description: 'A published page by url_key, with its content (sanitised HTML).', inputSchema: { url_key: urlKey, view }, annotations: readOnly },
    (args) => answer(async () => found(`page ${args.url_key}`, await content.getPage(ctx, args))),
  );
  server.registerTool(
    'list_posts',
    { title: 'List blog posts', description: 'Published blog posts of the site in a view, newest first (without their content; use get_post).', inputSchema: paging, annotations: readOnly },
    (args) => answer(async () => {
      const { items, next_page_token } = await content.listPosts(ctx, args);
      return { posts: items.map(summary), next_page_token };
    }),
  );
  server.registerTool(
    'get_post',
    { title: 'Read a blog post', description: 'A published blog post by url_key, with its content (sanitised HTML).', inputSchema: { url_key: urlKey, view }, annotations: readOnly },
    (args) => answer(async () => found(`post ${args.url_key}`, await content.getPost(ctx, args))),
  );
  server.registerTool(
    'get_navigation',
    {
      title: 'Read a navigation menu',
      description: 'A navigation menu by identifier (`main` exists on every site) as the view shows it: entries with label, href and children.',
      inputSchema: { identifier: z.string().min(1).max(128).describe('Handle of the menu, e.g. `main` or `footer`.'), view },
      annotations: readOnly,
    },
    (args) => answer(async () => found(`menu ${args.identifier}`, await content.getNavigation(ctx, args))),
  );
  if (search) {
    server.registerTool(
      'search',
      {
        title: 'Search the site',
        description:
          'Ranked full-text search over the published pages and blog posts of the site in a view, best first. `q` is plain words (all must match). ' +
          'Each hit has title, url, path, kind, and `snippet_html` (escaped text with <mark> around the matched words).',
        inputSchema: {
          q: z.string().max(10_000).describe('The words to search for (1 to 200 characters).'),
          view,
          page_size: z.number().int().min(0).max(1000).optional().describe('Hits per page, 1 to 50 (0 or absent: 10).'),
          page_token: z.string().max(4096).optional().describe('next_page_token of the previous call (same q and view).'),
        },
        annotations: readOnly,
      },
      (args) => answer(() => search.run(ctx, content.viewOf(ctx, args.view), args)),
    );
  }
  return server;
}

/**
 * `/mcp`: an MCP server over Streamable HTTP in stateless mode (a fresh server and transport per
 * POST, JSON answers, no sessions, so any process of the site answers any request). GET (the
 * server-to-client stream) and DELETE (session end) have nothing to offer without sessions: 405.
 * Bodies are parsed by the platform (bad JSON is INVALID_ARGUMENT); JSON-RPC errors are the SDK's.
 */
export function registerMcp(site: FastifyInstance, deps: SiteDeps, content: SiteContent): void {
  const guard = async (request: FastifyRequest) => {
    const ctx = deps.siteOf(request);
    if (!enabled(await deps.settings(ctx, ctx.defaultView), 'mcp')) throw new NotFound(`no route ${request.method} ${MCP_PATH}`);
    checkOrigin(request);
    return ctx;
  };

  site.route({
    method: 'POST',
    url: MCP_PATH,
    config: { siteJson: true },
    handler: async (request, reply) => {
      const ctx = await guard(request);
      // The `search` tool is offered only while the website serves search (`search.enabled`).
      const search = deps.search && (await deps.search.enabled(ctx)) ? deps.search : undefined;
      const sdk = await loadSdk();
      const server = mcpServerFor(ctx, content, search, sdk);
      const transport = new sdk.Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await server.connect(transport);
        const headers = new Headers();
        for (const [name, value] of Object.entries(request.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const response = await transport.handleRequest(new Request(`${ctx.origin}${MCP_PATH}`, { method: 'POST', headers }), { parsedBody: request.body });
        reply.code(response.status);
        response.headers.forEach((value, name) => {
          if (name !== 'content-length') reply.header(name, value);
        });
        reply.header('cache-control', 'no-store');
        const body = await response.text();
        return reply.send(body === '' ? undefined : body);
      } finally {
        await server.close();
      }
    },
  });
  site.route({
    method: ['GET', 'DELETE', 'PUT', 'PATCH'],
    url: MCP_PATH,
    // Refuses only: says nothing about what /mcp serves (the 405s' Allow).
    config: { siteJson: true, refusesOnly: true },
    handler: async (request) => {
      await guard(request);
      throw new MethodNotAllowed(request.method, MCP_PATH, ['POST']);
    },
  });
}
