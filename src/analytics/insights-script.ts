import { createHash } from 'node:crypto';

/**
 * The first-party script the layout loads when `analytics.enabled` is on (`<script
 * src="/_site/insights.js?v=…" defer data-respect-privacy="true|false">`). It stores nothing in the
 * browser (no cookie, no localStorage), talks to nobody but the site's own host, and sends
 * `{"events":[{"name","url","referrer"}]}` to `POST /_site/event` with `navigator.sendBeacon`
 * (text/plain, so no CORS preflight), else `fetch(…, {keepalive: true})`:
 *
 * - a `pageview` on load, and on every history change of a single-page app (pushState,
 *   replaceState to another path, popstate), once per path change;
 * - `window.siteInsights.track(name)` for a named event (1..120 characters). Custom properties are
 *   not collected (the tables have no column for them; they would be a place for personal data).
 *
 * With `data-respect-privacy="true"` nothing is sent when the browser says Do Not Track or Global
 * Privacy Control (the server drops such hits too, by their `DNT` / `Sec-GPC` headers).
 */
export const INSIGHTS_SCRIPT = `(function () {
  'use strict';
  var script = document.currentScript;
  var respectPrivacy = !script || script.getAttribute('data-respect-privacy') !== 'false';
  var endpoint = '/_site/event';
  var lastPath = null;
  function optedOut() {
    if (!respectPrivacy) return false;
    return navigator.doNotTrack === '1' || window.doNotTrack === '1' || navigator.globalPrivacyControl === true;
  }
  function send(name) {
    if (optedOut()) return;
    var event = { name: name, url: location.href };
    if (document.referrer) event.referrer = document.referrer.slice(0, 2048);
    var body = JSON.stringify({ events: [event] });
    try {
      if (navigator.sendBeacon && navigator.sendBeacon(endpoint, body)) return;
    } catch (e) {}
    if (window.fetch) {
      fetch(endpoint, { method: 'POST', body: body, headers: { 'content-type': 'text/plain' }, keepalive: true, credentials: 'omit' }).catch(function () {});
    }
  }
  function pageview() {
    if (location.pathname === lastPath) return;
    lastPath = location.pathname;
    send('pageview');
  }
  var history = window.history;
  if (history && history.pushState) {
    ['pushState', 'replaceState'].forEach(function (method) {
      var original = history[method];
      history[method] = function () {
        var result = original.apply(this, arguments);
        pageview();
        return result;
      };
    });
    window.addEventListener('popstate', pageview);
  }
  window.siteInsights = {
    track: function (name) {
      if (typeof name === 'string' && name.length > 0 && name.length <= 120) send(name);
    }
  };
  pageview();
})();
`;

/** Changes with the text: the layout links `?v={version}`, so the script may be cached for a year. */
export const INSIGHTS_VERSION = createHash('sha256').update(INSIGHTS_SCRIPT).digest('base64url').slice(0, 12);
