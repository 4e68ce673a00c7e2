/**
 * The core's Liquid templates (areas add theirs through `SiteContribution.templates`). Every
 * output is HTML-escaped unless marked `| raw`; only sanitised stored HTML is ever marked raw.
 *
 * Variables every template sees: `site` (name, tagline, origin, locale, views with their home
 * links), `view`, `page` (the meta of the answer: title, description, canonical URL, robots,
 * alternates), `chrome` (theme, menus, footer; see chrome.ts), `visitor` (signed-in customer or nil).
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
{% if page.ogDescription or page.description %}<meta property="og:description" content="{{ page.ogDescription | default: page.description }}">{% endif %}
{% if page.image %}<meta property="og:image" content="{{ page.image }}">{% endif %}
<meta name="twitter:card" content="{% if page.image %}summary_large_image{% else %}summary{% endif %}">
{% if chrome.favicon_url %}<link rel="icon" href="{{ chrome.favicon_url }}">{% endif %}
{% if chrome.css %}<style>{{ chrome.css | raw }}</style>{% endif %}
{% block head %}{% endblock %}
</head>
<body>
<a class="skip-link" href="#main">{{ site.skip_label }}</a>
<header class="site-header">
<a class="site-name" href="{{ site.home_path }}">{% if chrome.logo_url %}<img src="{{ chrome.logo_url }}" alt="{{ site.name }}" height="48">{% else %}{{ site.name }}{% endif %}</a>
{% if site.tagline != "" %}<p class="site-tagline">{{ site.tagline }}</p>{% endif %}
{% if chrome.main_menu %}{% render 'menu', menu: chrome.main_menu, label: chrome.main_menu.label %}{% endif %}
{% if site.views.size > 1 %}<nav aria-label="Language"><ul class="views">{% for v in site.views %}<li><a href="{{ v.home_path }}" hreflang="{{ v.locale }}" lang="{{ v.locale }}"{% if v.id == view.id %} aria-current="true"{% endif %}>{{ v.display_name }}</a></li>{% endfor %}</ul></nav>{% endif %}
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
  menu: `<nav aria-label="{{ label }}"><ul>{% for item in menu.items %}<li><a href="{{ item.href }}"{% if item.current %} aria-current="page"{% endif %}>{{ item.label }}</a>{% if item.children.size > 0 %}<ul>{% for child in item.children %}<li><a href="{{ child.href }}">{{ child.label }}</a></li>{% endfor %}</ul>{% endif %}</li>{% endfor %}</ul></nav>`,
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
