import type { SiteContribution, SiteScript } from '../platform/area.js';

/**
 * The theme screen's live preview (docs/decisions.md, "Theme preview"): the admin frames a site
 * page with `?theme_preview=1`, which adds this first-party script to the layout. Inside a frame
 * only, it applies the CSS variables the admin's origin posts (`{type: 'theme-preview', variables}`)
 * as inline custom properties of `<html>`, so unsaved values show on the real rendering; nothing is
 * stored and no other origin is listened to. Without the flag no page carries it.
 */
export const THEME_PREVIEW_PATH = '/_site/theme-preview.js';
export const THEME_PREVIEW_QUERY = 'theme_preview';

/** Kept in step with chrome.ts's rule for stored values: a custom property name and a value that cannot end the declaration. */
const SCRIPT = `(function () {
  var s = document.currentScript;
  var admin = s && s.getAttribute('data-admin');
  if (!admin || window.parent === window) return;
  var applied = [];
  window.addEventListener('message', function (e) {
    if (e.origin !== admin || e.source !== window.parent || !e.data || e.data.type !== 'theme-preview') return;
    var style = document.documentElement.style;
    applied.forEach(function (name) { style.removeProperty(name); });
    applied = [];
    var vars = e.data.variables || {};
    Object.keys(vars).forEach(function (name) {
      var value = vars[name];
      if (!/^--[A-Za-z0-9_-]{1,100}$/.test(name) || typeof value !== 'string' || value.length > 256 || /[;{}<>\\\\]|\\/\\*/.test(value)) return;
      style.setProperty(name, value);
      applied.push(name);
    });
  });
  window.parent.postMessage({ type: 'theme-preview-ready' }, admin);
})();
`;

/** Whether a site page request asks for the preview script. */
export const wantsThemePreview = (query: Record<string, string>) => query[THEME_PREVIEW_QUERY] === '1';

/** The layout script of a preview rendering: the admin's origin is the only one it listens to. */
export const themePreviewScript = (adminOrigin: string): SiteScript => ({ src: THEME_PREVIEW_PATH, data: { admin: adminOrigin } });

export function themePreviewContribution(): SiteContribution {
  return {
    routes(site) {
      site.get(THEME_PREVIEW_PATH, async (_request, reply) =>
        reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(SCRIPT),
      );
    },
  };
}
