import type { CustomMethodDecl } from '../platform/resource/declaration.js';
import type { PageResolver } from '../cms/index.js';
import { resolvedSchema } from './blog.shared.js';

/** `:resolve` of a category, tag or author: the resource as a view sees it (the page overlay resolution). */
export function resolveMethod(noun: string, singular: string, resolver: PageResolver, fields: readonly string[], overridable: readonly string[]): CustomMethodDecl {
  return {
    verb: 'resolve',
    on: 'item',
    summary: `Read a blog ${noun} as a view sees it`,
    description:
      `Answers the ${noun} as the rendered site shows it in \`view_id\` (default: the website's default view): each field listed in that view ` +
      "overlay's `overridden` replaces the stored one, and a view without an overlay listing a field shows its fallback chain's (`views.fallback_view_id`): the one resolution of `cms_pages:resolve`. A view of another website is INVALID_ARGUMENT. Reads only.",
    access: 'read',
    body: { properties: { view_id: { type: 'string', maxLength: 64, description: "View to read as; default: the website's default view." } } },
    response: resolvedSchema(`Resolved${singular}`, `A blog ${noun} as one view sees it.`, Object.fromEntries(fields.map((f) => [f, 'text' as const])), overridable),
    async handle(ctx, call) {
      const result = await resolver.resolve(ctx, call.params, call.body);
      // Categories, tags and authors have no visibility of their own.
      result.is_visible = true;
      return result;
    },
  };
}
