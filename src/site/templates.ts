/**
 * The core's Liquid templates (areas add theirs through `SiteContribution.templates`). Every
 * output is HTML-escaped unless marked `| raw`; only sanitised stored HTML is ever marked raw.
 *
 * Variables every template sees: `site` (name, tagline, origin, locale, views with their home
 * links, `scripts`: first-party scripts contributions name for the layout's head), `view`, `page`
 * (the meta of the answer: title, description, canonical URL, robots, alternates), `chrome`
 * (theme, menus, footer; see chrome.ts), `visitor` (signed-in customer or nil).
 */
import { DESIGN_CSS, DESIGN_CSS_PATH } from './design.css.js';

/**
 * The layout's styles: the default design (design.css.ts, one cached file for every website) and
 * the theme's variables it is built on (`chrome.css`, per website, inline).
 */
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
<meta property="og:locale" content="{{ view.locale | replace: "-", "_" }}">
{% if page.ogDescription or page.description %}<meta property="og:description" content="{{ page.ogDescription | default: page.description }}">{% endif %}
{% if page.image %}<meta property="og:image" content="{{ page.image }}">{% if page.imageAlt %}<meta property="og:image:alt" content="{{ page.imageAlt }}">{% endif %}{% endif %}
<meta name="twitter:card" content="{% if page.image %}summary_large_image{% else %}summary{% endif %}">
<meta name="theme-color" media="(prefers-color-scheme: light)" content="{{ chrome.theme_color }}">
<meta name="theme-color" media="(prefers-color-scheme: dark)" content="{{ chrome.theme_color_dark }}">
<link rel="icon" href="{{ chrome.favicon_url }}" type="{{ chrome.favicon_type }}">
{% if chrome.touch_icon_url %}<link rel="apple-touch-icon" href="{{ chrome.touch_icon_url }}">
{% endif %}
<link rel="stylesheet" href="${DESIGN_CSS_PATH}">
<style>{{ chrome.css | raw }}</style>
{% for script in site.scripts %}<script src="{{ script.src }}" defer{% for d in script.data %} data-{{ d.name }}="{{ d.value }}"{% endfor %}></script>
{% endfor %}{% for item in page.json_ld %}<script type="application/ld+json">{{ item | json_ld | raw }}</script>
{% endfor %}{% block head %}{% endblock %}
</head>
<body>
<a class="skip-link" href="#main">{{ site.skip_label }}</a>
<header class="site-header"><div class="wrap header-inner">
<a class="brand" href="{{ site.home_path }}">{% if chrome.logo %}<img src="{{ chrome.logo.src }}"{% if chrome.logo.srcset != "" %} srcset="{{ chrome.logo.srcset }}" sizes="{{ chrome.logo.sizes }}"{% endif %} alt="{{ chrome.logo.alt }}"{% if chrome.logo.width %} width="{{ chrome.logo.width }}" height="{{ chrome.logo.height }}"{% endif %}>{% endif %}<span>{{ site.name }}</span></a>
<div class="site-nav">{% render 'header-nav', chrome: chrome, site: site, view: view, visitor: visitor, current: page.canonicalPath, suffix: "" %}</div>
<details class="nav-drawer"><summary>{{ site.menu_label }}</summary><div class="drawer">{% render 'header-nav', chrome: chrome, site: site, view: view, visitor: visitor, current: page.canonicalPath, suffix: "-m" %}</div></details>
</div></header>
<main id="main" class="wrap">
{% block content %}{% endblock %}
</main>
<footer class="site-footer"><div class="wrap footer-inner">
<div class="footer-brand"><p class="footer-name">{{ site.name }}</p>{% if site.tagline != "" %}<p>{{ site.tagline }}</p>{% endif %}</div>
{% if chrome.footer_html %}<div class="footer-block">{{ chrome.footer_html | raw }}</div>{% endif %}
{% if chrome.footer_menu %}<nav class="footer-menu" aria-label="{{ chrome.footer_menu.label }}">{% render 'menu-items', items: chrome.footer_menu.items, current: page.canonicalPath, depth: 4 %}</nav>{% endif %}
<p class="footer-meta">© {{ site.year }} {{ site.name }}</p>
</div></footer>
</body>
</html>
`,
  // The header's navigation, twice in the page: inline on wide screens, inside the "Menu" disclosure
  // (a native <details>, no script) on narrow ones; CSS shows one. `suffix` keeps ids unique.
  'header-nav': `{% if chrome.main_menu %}{% render 'menu', menu: chrome.main_menu, label: chrome.main_menu.label, current: current %}{% endif %}
{% if site.views.size > 1 %}<nav aria-label="{{ site.language_label }}"><ul class="views">{% for v in site.views %}<li><a href="{{ v.home_path }}" hreflang="{{ v.locale }}" lang="{{ v.locale }}"{% if v.id == view.id %} aria-current="true"{% endif %}>{{ v.display_name }}</a></li>{% endfor %}</ul></nav>{% endif %}
{% if site.search_path %}<form class="site-search" role="search" action="{{ site.search_path }}" method="get"><label class="visually-hidden" for="site-search-q{{ suffix }}">{{ site.search_label }}</label><input id="site-search-q{{ suffix }}" type="search" name="q" maxlength="200" placeholder="{{ site.search_label }}…" required><button type="submit">{{ site.search_label }}</button></form>{% endif %}
{% render 'account-links', visitor: visitor, site: site %}`,
  menu: `<nav class="site-menu" aria-label="{{ label }}">{% render 'menu-items', items: menu.items, current: current, depth: 0 %}</nav>`,
  // Recursive: a menu is at most 5 levels deep (navigation items' limit).
  'menu-items': `<ul>{% for item in items %}<li><a href="{{ item.href }}"{% if item.href == current %} aria-current="page"{% endif %}{% if item.new_tab %} target="_blank" rel="noopener noreferrer"{% endif %}>{{ item.label }}</a>{% if item.children.size > 0 and depth < 5 %}{% render 'menu-items', items: item.children, current: current, depth: depth | plus: 1 %}{% endif %}</li>{% endfor %}</ul>`,
  // The customers area replaces it with sign-in / account links.
  'account-links': '',
  // An image of the media library: `image` as media.site.ts answers it (`src`, `srcset`, `sizes`,
  // `width`, `height`, `alt`), `lazy` below the fold, `sizes` the layout's slot width.
  image: `<img src="{{ image.src }}"{% if image.srcset != "" %} srcset="{{ image.srcset }}" sizes="{{ sizes | default: '100vw' }}"{% endif %} alt="{{ image.alt }}"{% if image.width %} width="{{ image.width }}" height="{{ image.height }}"{% endif %}{% if lazy %} loading="lazy"{% else %} fetchpriority="high"{% endif %} decoding="async">`,
  // A post as a card (home page, blog index, archives): `post` as the blog's `cards()` answers it, `level` its heading's.
  card: `<article class="card">{% if post.image %}<figure class="card-media">{% render 'image', image: post.image, sizes: post.sizes, lazy: post.lazy %}</figure>{% endif %}<div class="card-body"><h{{ level }}><a href="{{ post.href }}">{{ post.title }}</a></h{{ level }}>{% if post.excerpt %}<div class="card-excerpt">{{ post.excerpt | raw }}</div>{% endif %}<p class="meta"><time datetime="{{ post.publish_iso }}">{{ post.publish_label }}</time>{% if post.reading_label %} · {{ post.reading_label }}{% endif %}</p></div></article>`,
  'not-found': `{% layout 'layout' %}{% block content %}<div class="error-page"><p class="error-code" aria-hidden="true">{{ code }}</p><h1>{{ heading }}</h1><p>{{ message }}</p><p><a class="button" href="{{ site.home_path }}">{{ home_label }}</a>{% if site.search_path %} <a class="button button-quiet" href="{{ site.search_path }}">{{ site.search_label }}</a>{% endif %}</p></div>{% endblock %}`,
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

/** The page of a site that is not LIVE (`general.site.status`): its name only, nothing of its content; the theme's colours and fonts. */
export const maintenanceHtml = (siteName: string, lang: string, themeCss = '') => {
  const name = siteName.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="${/^[A-Za-z0-9-]{1,35}$/.test(lang) ? lang : 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${name}: back soon</title>
<style>${themeCss}${DESIGN_CSS}</style></head>
<body><main class="wrap"><div class="error-page"><p class="error-code" aria-hidden="true">503</p><h1>${name} is down for maintenance</h1><p>Please come back a little later.</p></div></main></body></html>
`;
};
