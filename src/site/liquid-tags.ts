import { evalToken, Tag, type Context, type Emitter, type Liquid, type TagToken, type TopLevelToken, type ValueToken } from 'liquidjs';
import { cmsSiteReader } from '../cms/index.js';
import type { Database } from '../platform/db/database.js';
import type { SiteContext, SiteView } from '../platform/area.js';
import { jsonLdText } from './design.js';

/**
 * Render globals of one site rendering (`liquid.renderFile(…, { globals })`): the site and view a
 * template renders for. A symbol key, so no template can read or print it; `render` partials
 * inherit globals, so tags work in partials too.
 */
export const SITE_RENDER = Symbol('siteRender');
export interface SiteRender {
  ctx: SiteContext;
  view: SiteView;
}

export const siteRenderGlobals = (ctx: SiteContext, view: SiteView) => ({ [SITE_RENDER]: { ctx, view } satisfies SiteRender });

/**
 * `{% block_content 'identifier' %}` (or a variable holding one): the CMS block with that
 * identifier as the rendered view shows it (overlays along the fallback chain, `is_visible`),
 * its stored sanitised HTML with its block placeholders expanded one level; nothing when the block
 * is unknown, inactive or not visible in the view. Named so as not to clash with Liquid's `block`.
 */
export function registerSiteTags(liquid: Liquid, database: Database): void {
  const cms = cmsSiteReader(database);
  // `{{ object | json_ld | raw }}` inside `<script type="application/ld+json">` (see jsonLdText).
  liquid.registerFilter('json_ld', (value: unknown) => jsonLdText(value));
  liquid.registerTag(
    'block_content',
    class BlockContentTag extends Tag {
      private readonly identifier: ValueToken | undefined;
      constructor(token: TagToken, remainTokens: TopLevelToken[], engine: Liquid) {
        super(token, remainTokens, engine);
        this.identifier = this.tokenizer.readValue();
        if (!this.identifier) throw new Error(`block_content needs a block identifier: ${token.getText()}`);
      }
      *render(ctx: Context, emitter: Emitter): Generator<unknown, void, unknown> {
        const site = (ctx.globals as Record<symbol, SiteRender | undefined>)[SITE_RENDER];
        const identifier = yield evalToken(this.identifier, ctx);
        if (!site || typeof identifier !== 'string' || !/^[a-z0-9][a-z0-9_.-]{0,127}$/.test(identifier)) return;
        const block = (yield cms.blockByIdentifier(site.ctx, site.view, identifier)) as Awaited<ReturnType<typeof cms.blockByIdentifier>>;
        if (!block) return;
        emitter.write((yield cms.expandBlocks(site.ctx, site.view, block.contentHtml)) as string);
      }
    },
  );
}
