/**
 * The media library at `/w/{websiteId}/r/media` (files) and `/w/{websiteId}/r/media_folders`
 * (the same screen: folders are its tree), replacing the generic screens for both.
 */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

interface LibrarySearch {
  folder?: string;
  q?: string;
  layout?: 'grid' | 'list';
}

const validateLibrarySearch = (s: Record<string, unknown>): LibrarySearch => ({
  folder: typeof s.folder === 'string' && s.folder ? s.folder : undefined,
  q: typeof s.q === 'string' && s.q ? s.q : undefined,
  layout: s.layout === 'list' ? 'list' : undefined,
});

const component = lazyRouteComponent(() => import('./screens'), 'MediaLibraryScreen');

export const mediaRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/media', validateSearch: validateLibrarySearch, component }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/media_folders', validateSearch: validateLibrarySearch, component }),
] as const;
