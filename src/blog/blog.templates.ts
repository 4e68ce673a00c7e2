/**
 * The blog's Liquid templates (names prefixed `blog/`), rendered inside the core layout
 * (src/site/templates.ts). Everything is escaped on output except `| raw` of sanitised stored HTML
 * (post content and excerpts, sanitised on write with the CMS allow-list).
 */
export const BLOG_TEMPLATES: Record<string, string> = {
  'blog/feed-links': `{% for feed in feeds %}<link rel="alternate" type="{{ feed.type }}" title="{{ feed.title }}" href="{{ feed.href }}">
{% endfor %}`,
  'blog/pager': `{% if pager.prev_href or pager.next_href %}<nav class="pagination" aria-label="{{ pager.label }}"><ul>{% if pager.prev_href %}<li><a rel="prev" href="{{ pager.prev_href }}">{{ pager.prev_label }}</a></li>{% endif %}{% if pager.next_href %}<li><a rel="next" href="{{ pager.next_href }}">{{ pager.next_label }}</a></li>{% endif %}</ul></nav>{% endif %}`,
  'blog/listing': `{% layout 'layout' %}{% block head %}{% render 'blog/feed-links', feeds: feeds %}{% if pager.prev_href %}<link rel="prev" href="{{ pager.prev_href }}">
{% endif %}{% if pager.next_href %}<link rel="next" href="{{ pager.next_href }}">
{% endif %}{% endblock %}{% block content %}<header class="page-head"><h1>{{ heading }}</h1>
{% if intro %}<p class="intro blog-intro">{{ intro }}</p>{% endif %}</header>
{% if children.size > 0 %}<nav aria-label="{{ children_label }}"><ul class="subnav blog-children">{% for child in children %}<li><a href="{{ child.href }}">{{ child.name }}</a></li>{% endfor %}</ul></nav>{% endif %}
{% if posts.size > 0 %}<ul class="cards blog-posts{% if lead %} cards-lead{% endif %}">{% for post in posts %}<li>{% render 'card', post: post, level: 2 %}</li>{% endfor %}</ul>{% elsif children.size == 0 %}<p>{{ empty }}</p>{% endif %}
{% render 'blog/pager', pager: pager %}{% endblock %}`,
  'blog/post': `{% layout 'layout' %}{% block head %}{% render 'blog/feed-links', feeds: feeds %}<meta property="article:published_time" content="{{ page.publishTime }}">
<meta property="article:modified_time" content="{{ page.updateTime }}">
{% for tag in post.tags %}<meta property="article:tag" content="{{ tag.name }}">
{% endfor %}{% endblock %}{% block content %}<article class="blog-post">
<header class="post-head">
{% if post.categories.size > 0 %}<p class="meta"><a href="{{ post.categories[0].href }}">{{ post.categories[0].name }}</a></p>{% endif %}
<h1>{{ post.title }}</h1>
{% if post.excerpt %}<div class="lede blog-excerpt">{{ post.excerpt | raw }}</div>{% endif %}
<p class="byline blog-byline">{% if post.authors.size > 0 %}<span>{{ labels.by }} {% for author in post.authors %}<a rel="author" href="{{ author.href }}">{{ author.name }}</a>{% unless forloop.last %}, {% endunless %}{% endfor %}</span>{% endif %}<span>{{ labels.published }} <time datetime="{{ post.publish_iso }}">{{ post.publish_label }}</time></span><span>{{ post.reading_label }}</span></p>
</header>
{% if post.feature_image %}<figure class="post-feature blog-feature">{% render 'image', image: post.feature_image, sizes: post.feature_sizes, lazy: false %}</figure>{% endif %}
<div class="prose blog-content">{{ post.content | raw }}</div>
<footer class="post-foot">
{% if post.categories.size > 0 %}<h2>{{ labels.categories }}</h2><ul class="chips blog-categories">{% for category in post.categories %}<li><a href="{{ category.href }}">{{ category.name }}</a></li>{% endfor %}</ul>{% endif %}
{% if post.tags.size > 0 %}<h2>{{ labels.tags }}</h2><ul class="chips blog-tags">{% for tag in post.tags %}<li><a rel="tag" href="{{ tag.href }}">{{ tag.name }}</a></li>{% endfor %}</ul>{% endif %}
{% if post.older or post.newer %}<nav class="post-nav" aria-label="{{ labels.posts }}">{% if post.older %}<a class="prev" rel="prev" href="{{ post.older.href }}"><span>{{ labels.older }}</span>{{ post.older.title }}</a>{% endif %}{% if post.newer %}<a class="next" rel="next" href="{{ post.newer.href }}"><span>{{ labels.newer }}</span>{{ post.newer.title }}</a>{% endif %}</nav>{% endif %}
<p><a href="{{ blog_href }}">← {{ labels.back }}</a></p>
</footer>
</article>{% endblock %}`,
};
