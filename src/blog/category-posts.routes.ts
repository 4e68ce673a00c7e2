import type { FastifyInstance } from 'fastify';
import type { SurfaceDeps } from '../platform/area.js';
import { NotFound } from '../platform/errors.js';
import { Reply, routeSchema } from '../platform/http/components.js';
import { errorResponses } from '../platform/http/openapi-shapes.js';
import { checkedFirst } from '../platform/http/route-context.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../platform/query/list-params.js';
import { createPageTokenCodec, queryBinding } from '../platform/query/page-token.js';
import { fillFromParams, routePath } from '../platform/resource/paths.js';
import { categoryExists, categoryOrderPage, CATEGORY_LINKS, countLinkedPosts } from './blog.repo.js';
import { BLOG_RIGHTS } from './blog.shared.js';

const COLLECTION = 'websites/{website_id}/blog_categories/{blog_category_id}/posts';

/** One position of a category's manual order. */
const CATEGORY_POST = {
  $id: 'BlogCategoryPost',
  type: 'object',
  description: 'A post of a category at its place in the manual order `:set_posts` wrote (read-only).',
  properties: {
    name: { type: 'string', maxLength: 512, description: '`websites/{website}/blog_categories/{category}/posts/{post}`.' },
    post: { type: 'string', maxLength: 512, description: 'The post, `websites/{website}/blog_posts/{post}`.' },
    post_id: { type: 'string', maxLength: 64, description: 'Id of the post.' },
    position: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Place in the order, 0 first; gaps are possible.' },
  },
  required: ['name', 'post', 'post_id', 'position'],
};

/**
 * `GET websites/{w}/blog_categories/{c}/posts`: a category's manual post order, read back page by page
 * (docs/decisions.md, "Reading a category's manual order"). A read-only sub-collection rather than a
 * field of the category: a category may hold 100 000 posts, which no single answer should carry.
 * Keyset pages over the side table's (website, category, position, post) index, so every page costs
 * the same however deep; the count of the first page rides along in the signed page token.
 */
export function registerCategoryPostsRoute(app: FastifyInstance, deps: SurfaceDeps): void {
  const db = deps.database.db;
  const pageTokens = createPageTokenCodec(deps.config.jwtSecret);
  const right = BLOG_RIGHTS.read;
  app.get(routePath(deps.prefix, COLLECTION), {
    schema: routeSchema(app, {
      operationId: 'ListBlogCategoryPosts',
      summary: "List a blog category's posts in their manual order",
      description:
        `The posts of the category in the order \`:set_posts\` wrote (posts that gained the category otherwise come after), ${DEFAULT_PAGE_SIZE} per page by default, ` +
        `at most ${MAX_PAGE_SIZE}. Read-only: \`:set_posts\` writes the order. Requires READ on section \`${right.section}\`.`,
      tags: ['blog_categories'],
      params: {
        type: 'object',
        properties: {
          website_id: { type: 'string', maxLength: 256, description: 'Id of the website.' },
          blog_category_id: { type: 'string', maxLength: 256, description: 'Id of the blog_category.' },
        },
        required: ['website_id', 'blog_category_id'],
      },
      querystring: {
        type: 'object',
        properties: {
          // The engine's List parameters, word for word (one shared component in the OpenAPI).
          page_size: {
            type: 'integer',
            format: 'int64',
            minimum: 0,
            maximum: Number.MAX_SAFE_INTEGER,
            description: `Items per page, 1 to ${MAX_PAGE_SIZE}; 0 or absent means 50; larger is clamped to ${MAX_PAGE_SIZE}.`,
          },
          page_token: { type: 'string', maxLength: 4096, description: 'From a previous `next_page_token`.' },
        },
      },
      response: {
        200: new Reply('A page of the order.', {
          $id: 'ListBlogCategoryPostsResponse',
          type: 'object',
          description: "A page of a category's posts in order.",
          properties: {
            posts: { type: 'array', maxItems: MAX_PAGE_SIZE, items: CATEGORY_POST, description: 'The page, in order.' },
            next_page_token: { type: 'string', maxLength: 4096, description: 'Pass as `page_token` for the next page; empty on the last page.' },
            total_size: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Posts of the category.' },
          },
          required: ['posts', 'next_page_token', 'total_size'],
        }),
        ...errorResponses({ authenticated: true, roles: true, notFound: true }),
      },
    }),
    config: { right },
    ...checkedFirst((request) => deps.context(request, COLLECTION, right)),
    handler: async (request) => {
      const ctx = await deps.context(request, COLLECTION, right);
      const params = request.params as { website_id: string; blog_category_id: string };
      const query = request.query as { page_size?: number; page_token?: string };
      if (!(await categoryExists(db, params.website_id, params.blog_category_id))) throw new NotFound(`blog_category ${params.blog_category_id}`);
      const pageSize = Math.min(query.page_size || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
      const binding = queryBinding(`${fillFromParams(COLLECTION, params)}|${ctx.caller.userId}`, '', 'position');
      const cursor = query.page_token ? pageTokens.decode(query.page_token, binding) : undefined;
      const after = cursor ? (cursor.after as [number, string]) : undefined;
      const rows = await categoryOrderPage(db, params.website_id, params.blog_category_id, after, pageSize + 1);
      const total = cursor?.total ?? (await countLinkedPosts(db, params.website_id, CATEGORY_LINKS, params.blog_category_id));
      const page = rows.slice(0, pageSize);
      const last = page[page.length - 1];
      const base = `websites/${params.website_id}`;
      return {
        posts: page.map((r) => ({
          name: `${base}/blog_categories/${params.blog_category_id}/posts/${r.post_id}`,
          post: `${base}/blog_posts/${r.post_id}`,
          post_id: String(r.post_id),
          position: Number(r.position),
        })),
        next_page_token: rows.length > pageSize ? pageTokens.encode({ binding, after: [Number(last.position), String(last.post_id)], total }) : '',
        total_size: total,
      };
    },
  });
}
