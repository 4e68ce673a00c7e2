// The CMS's public surface: what other folders use. Blog reuses the content resolution
// (view overlays, `:resolve`, url keys per view scope, the rich-text sanitiser).
export { cmsArea, HOME_PAGE_ID } from './cms.area.js';
export { IDENTIFIER_PATTERN } from './cms-block.resource.js';
export { MAX_CONTENT_LENGTH, URL_KEY_PATTERN } from './cms-page.resource.js';
export { checkUrlKeyFree, idListReference, overlayReference, slugOf, visibleViewIdsField, visibleViewsReference } from './cms.service.js';
export { findPageId } from './cms.repo.js';
export { cmsSiteReader, HOME_URL_KEY } from './cms.site.js';
export type { CmsSiteReader, SiteBlock } from './cms.site.js';
export { sanitizeFields } from './content-html.js';
export { overlayResource } from './overlay.js';
export { createPublishedPages, pagePathOf } from './published-pages.js';
export type { PublishedPage, PublishedPages } from './published-pages.js';
export { createResolver, isVisibleIn } from './resolve.js';
export type { PageResolver, ResolveKey, ResolverSpec } from './resolve.js';
export { createViewOverlayReader, fieldSourcesSchema, overriddenFieldsSchema } from './view-overlays.js';
export type { ViewOverlayReader, ViewReading } from './view-overlays.js';
export { countPages, pageContentsWithBlocks, pageIdsAfter, pageIdsQuery, pageUrlKeys } from './page-sources.repo.js';
