import type { SiteView } from './contribution.js';

/** Site path of `path` (within a view) in `view`: `/about` → `/de/about`; the home `/` → `/de`. */
export function siteHref(view: SiteView, path: string): string {
  return view.urlPrefix ? `/${view.urlPrefix}${path === '/' ? '' : path}` : path;
}
