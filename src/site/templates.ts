/**
 * The core's Liquid templates (areas add theirs through `SiteContribution.templates`). Every
 * output is HTML-escaped unless marked `| raw`; only sanitised stored HTML is ever marked raw.
 *
 * Variables every template sees: `site` (name, tagline, origin, locale, views with their home
 * links, `scripts`: first-party scripts contributions name for the layout's head), `view`, `page`
 * (the meta of the answer: title, description, canonical URL, robots, alternates), `chrome`
 * (theme, menus, footer; see chrome.ts), `visitor` (signed-in customer or nil).
 */
/**
 * The layout's own styles, built on the theme's variables (`chrome.css` sets them; the theme's
 * defaults apply when it sets none). Kept small: themes restyle through the variables.
 */
const BASE_CSS = [
  'body{margin:0;font-family:var(--font-body,system-ui,sans-serif);font-size:var(--font-size-base,16px);line-height:1.5;color:var(--color-text,#1f2328);background:var(--color-background,#fff)}',
  'a{color:var(--color-link,#0969da)}',
  'h1,h2,h3,h4,h5,h6{font-family:var(--font-heading,system-ui,sans-serif);line-height:1.25}',
  '.site-header,main,.site-footer{max-width:var(--content-width,72rem);margin:0 auto;padding:1rem}',
  '.site-header{display:flex;flex-wrap:wrap;align-items:center;gap:1rem}',
  '.site-name{font-weight:bold;font-size:1.25rem;text-decoration:none}',
  '.site-header ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:1rem}',
  '.site-header ul ul{display:block;padding-left:1rem}',
  '.skip-link{position:absolute;left:-10000px;top:auto}',
  '.skip-link:focus{position:static}',
  'img{max-width:100%;height:auto}',
  '.site-footer{border-top:1px solid var(--color-secondary,#6e7781)}',
].join('\n');

export const CORE_TEMPLATES: Record<string, string> = {
  layout: `<!doctype html>
<html lang="{{ view.locale }}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ page.full_title }}</title>
{% if page.description %}<meta name="description" content="{{ page.description }}">{% endif %}
{% if page.robots %}<meta name="robots" content="{{ page.robots }}">{% endif %}
<link rel="canonical" href="{{ page.canonicalUrl | default: page.canonical_url }}">
{% for alternate in page.alternates %}<link rel="alternate" hreflang="{{ alternate.hreflang }}" href="{{ alternate.url }}">
{% endfor %}{% if page.markdown_url %}<link rel="alternate" type="text/markdown" href="{{ page.markdown_url }}">
{% endif %}<meta property="og:title" content="{{ page.ogTitle | default: page.title }}">
<meta property="og:type" content="{{ page.type }}">
<meta property="og:url" content="{{ page.canonical_url }}">
<meta property="og:site_name" content="{{ site.name }}">
{% if page.ogDescription or page.description %}<meta property="og:description" content="{{ page.ogDescription | default: page.description }}">{% endif %}
{% if page.image %}<meta property="og:image" content="{{ page.image }}">{% endif %}
<meta name="twitter:card" content="{% if page.image %}summary_large_image{% else %}summary{% endif %}">
{% if chrome.favicon_url %}<link rel="icon" href="{{ chrome.favicon_url }}">{% endif %}
<style>{{ chrome.css | raw }}
${BASE_CSS}</style>
{% for script in site.scripts %}<script src="{{ script.src }}" defer{% for d in script.data %} data-{{ d.name }}="{{ d.value }}"{% endfor %}></script>
{% endfor %}{% block head %}{% endblock %}
</head>
<body>
<a class="skip-link" href="#main">{{ site.skip_label }}</a>
<header class="site-header">
<a class="site-name" href="{{ site.home_path }}">{% if chrome.logo_url %}<img src="{{ chrome.logo_url }}"{% if chrome.logo_srcset %} srcset="{{ chrome.logo_srcset }}" sizes="12rem"{% endif %} alt="{{ site.name }}" height="48">{% else %}{{ site.name }}{% endif %}</a>
{% if site.tagline != "" %}<p class="site-tagline">{{ site.tagline }}</p>{% endif %}
{% if chrome.main_menu %}{% render 'menu', menu: chrome.main_menu, label: chrome.main_menu.label, current: page.canonicalPath %}{% endif %}
{% if site.views.size > 1 %}<nav aria-label="Language"><ul class="views">{% for v in site.views %}<li><a href="{{ v.home_path }}" hreflang="{{ v.locale }}" lang="{{ v.locale }}"{% if v.id == view.id %} aria-current="true"{% endif %}>{{ v.display_name }}</a></li>{% endfor %}</ul></nav>{% endif %}
{% if site.search_path %}<form class="site-search" role="search" action="{{ site.search_path }}" method="get"><label for="site-search-q">Search</label> <input id="site-search-q" type="search" name="q" maxlength="200" required> <button type="submit">Search</button></form>{% endif %}
{% render 'account-links', visitor: visitor, site: site %}
</header>
<main id="main">
{% block content %}{% endblock %}
</main>
<footer class="site-footer">
{% if chrome.footer_html %}{{ chrome.footer_html | raw }}{% endif %}
</footer>
</body>
</html>
`,
  menu: `<nav class="site-menu" aria-label="{{ label }}">{% render 'menu-items', items: menu.items, current: current, depth: 0 %}</nav>`,
  // Recursive: a menu is at most 5 levels deep (navigation items' limit).
  'menu-items': `<ul>{% for item in items %}<li><a href="{{ item.href }}"{% if item.href == current %} aria-current="page"{% endif %}{% if item.new_tab %} target="_blank" rel="noopener noreferrer"{% endif %}>{{ item.label }}</a>{% if item.children.size > 0 and depth < 5 %}{% render 'menu-items', items: item.children, current: current, depth: depth | plus: 1 %}{% endif %}</li>{% endfor %}</ul>`,
  // The customers area replaces it with sign-in / account links.
  'account-links': '',
  'not-found': `{% layout 'layout' %}{% block content %}<h1>{{ heading }}</h1><p>{{ message }}</p><p><a href="{{ site.home_path }}">{{ home_label }}</a></p>{% endblock %}`,
};

/** The page a host no website answers on: plain, nothing of any tenant. */
export const UNKNOWN_HOST_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not found</title></head>
<body><main><h1>Not found</h1><p>No website answers at this address.</p></main></body></html>
`;

/** A failure on a site: plain, with the request id to quote. */
export const errorHtml = (status: number, requestId: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Error ${status}</title></head>
<body><main><h1>Something went wrong</h1><p>Error ${status}. Reference: ${requestId.replace(/[^A-Za-z0-9._-]/g, '')}</p></main></body></html>
`;

/** The page of a site that is not LIVE (`general.site.status`): its name only, nothing of its content. */
export const maintenanceHtml = (siteName: string, lang: string) => {
  const name = siteName.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="${/^[A-Za-z0-9-]{1,35}$/.test(lang) ? lang : 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${name}: back soon</title></head>
<body><main><h1>${name} is down for maintenance</h1><p>Please come back a little later.</p></main></body></html>
`;
};
