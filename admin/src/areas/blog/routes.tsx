/**
 * The blog's posts, tags and authors: `/w/{websiteId}/r/blog_posts[/{id}]`, `…/r/blog_tags`,
 * `…/r/blog_authors` (categories: admin/src/areas/blog-categories/).
 */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';
import { validatePostListSearch } from './post-list-search';

const screen = (name: 'PostsListScreen' | 'PostEditorScreen' | 'TagsScreen' | 'AuthorsScreen') => lazyRouteComponent(() => import('./screens'), name);

const validateEditorSearch = (s: Record<string, unknown>): { view?: string; tab?: string } => ({
  view: typeof s.view === 'string' && s.view ? s.view : undefined,
  tab: typeof s.tab === 'string' && s.tab ? s.tab : undefined,
});

export const blogRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/blog_posts', validateSearch: validatePostListSearch, component: screen('PostsListScreen') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/blog_posts/$postId', validateSearch: validateEditorSearch, component: screen('PostEditorScreen') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/blog_tags', component: screen('TagsScreen') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/blog_authors', component: screen('AuthorsScreen') }),
] as const;
