/**
 * Pages and blocks: `/w/{websiteId}/r/cms_pages[/{id}]`, `/w/{websiteId}/r/cms_blocks[/{id}]`
 * (static routes win over the generic screens' `r/$`, so the navigation's links land here).
 */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';
import { validateContentListSearch } from './list-search';

const screen = (name: 'PagesListScreen' | 'BlocksListScreen' | 'PageEditorScreen' | 'BlockEditorScreen') => lazyRouteComponent(() => import('./screens'), name);

const validateEditorSearch = (s: Record<string, unknown>): { view?: string; tab?: string } => ({
  view: typeof s.view === 'string' && s.view ? s.view : undefined,
  tab: typeof s.tab === 'string' && s.tab ? s.tab : undefined,
});

export const pagesRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/cms_pages', validateSearch: validateContentListSearch, component: screen('PagesListScreen') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/cms_pages/$pageId', validateSearch: validateEditorSearch, component: screen('PageEditorScreen') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/cms_blocks', validateSearch: validateContentListSearch, component: screen('BlocksListScreen') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/cms_blocks/$blockId', validateSearch: validateEditorSearch, component: screen('BlockEditorScreen') }),
] as const;
