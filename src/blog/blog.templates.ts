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
{% endif %}{% endblock %}{% block content %}<h1>{{ heading }}</h1>
{% if intro %}<p class="blog-intro">{{ intro }}</p>{% endif %}
{% if children.size > 0 %}<nav aria-label="{{ children_label }}"><ul class="blog-children">{% for child in children %}<li><a href="{{ child.href }}">{{ child.name }}</a></li>{% endfor %}</ul></nav>{% endif %}
{% if posts.size > 0 %}<ul class="blog-posts">{% for post in posts %}<li><article>
<h2><a href="{{ post.href }}">{{ post.title }}</a></h2>
<p class="blog-date"><time datetime="{{ post.publish_iso }}">{{ post.publish_label }}</time></p>
{% if post.excerpt %}<p class="blog-excerpt">{{ post.excerpt | raw }}</p>{% endif %}
</article></li>{% endfor %}</ul>{% elsif children.size == 0 %}<p>{{ empty }}</p>{% endif %}
{% render 'blog/pager', pager: pager %}{% endblock %}`,
  'blog/post': `{% layout 'layout' %}{% block head %}{% render 'blog/feed-links', feeds: feeds %}<meta property="article:published_time" content="{{ page.publishTime }}">
<meta property="article:modified_time" content="{{ page.updateTime }}">
{% for tag in post.tags %}<meta property="article:tag" content="{{ tag.name }}">
{% endfor %}{% endblock %}{% block content %}<article class="blog-post">
<header>
<h1>{{ post.title }}</h1>
<p class="blog-byline">{{ labels.published }} <time datetime="{{ post.publish_iso }}">{{ post.publish_label }}</time>{% if post.authors.size > 0 %} · {{ labels.by }} {% for author in post.authors %}<a rel="author" href="{{ author.href }}">{{ author.name }}</a>{% unless forloop.last %}, {% endunless %}{% endfor %}{% endif %}</p>
{% if post.excerpt %}<div class="blog-excerpt">{{ post.excerpt | raw }}</div>{% endif %}
</header>
{% if post.feature_image %}<figure class="blog-feature"><img src="{{ post.feature_image.src }}"{% if post.feature_image.srcset != "" %} srcset="{{ post.feature_image.srcset }}" sizes="(max-width: 1280px) 100vw, 1280px"{% endif %} alt="{{ post.feature_image.alt }}"{% if post.feature_image.width %} width="{{ post.feature_image.width }}"{% endif %}{% if post.feature_image.height %} height="{{ post.feature_image.height }}"{% endif %}></figure>{% endif %}
<div class="blog-content">{{ post.content | raw }}</div>
<footer>
{% if post.categories.size > 0 %}<h2>{{ labels.categories }}</h2><ul class="blog-categories">{% for category in post.categories %}<li><a href="{{ category.href }}">{{ category.name }}</a></li>{% endfor %}</ul>{% endif %}
{% if post.tags.size > 0 %}<h2>{{ labels.tags }}</h2><ul class="blog-tags">{% for tag in post.tags %}<li><a rel="tag" href="{{ tag.href }}">{{ tag.name }}</a></li>{% endfor %}</ul>{% endif %}
<p><a href="{{ blog_href }}">{{ labels.back }}</a></p>
</footer>
</article>{% endblock %}`,
};
