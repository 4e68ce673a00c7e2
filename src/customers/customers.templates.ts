/**
 * Liquid templates of the customer account pages on rendered websites (customers.site.ts), and the
 * customers area's `account-links` (the core leaves that slot empty). Every output is escaped.
 *
 * `account-links` is part of cached, shared renderings (one per customer-group set): it may show
 * only whether someone is signed in, never who (no name, no CSRF token). Signing out is therefore
 * a link to a confirmation page whose form carries the token.
 */
export const ACCOUNT_TEMPLATES: Record<string, string> = {
  'account-links': `{% capture q %}{% if site.home_path != "/" %}?view={{ site.home_path | remove_first: "/" }}{% endif %}{% endcapture %}<nav class="account-nav" aria-label="Account"><ul>{% if visitor %}<li><a href="/account{{ q }}">Your account</a></li><li><a href="/account/sign-out{{ q }}">Sign out</a></li>{% else %}<li><a href="/account/sign-in{{ q }}">Sign in</a></li><li><a href="/account/sign-up{{ q }}">Create an account</a></li>{% endif %}</ul></nav>`,

  // One form page: heading, notices, the error summary (focusable, announced), the fields, links.
  'account/form': `{% layout 'layout' %}{% block content %}<div class="panel">
<h1>{{ heading }}</h1>
{% if notice %}<p class="notice" role="status">{{ notice }}</p>{% endif %}
{% if intro %}<p>{{ intro }}</p>{% endif %}
{% if details.size > 0 %}<dl class="account-details">{% for d in details %}<dt>{{ d.label }}</dt><dd>{{ d.value }}</dd>{% endfor %}</dl>{% endif %}
{% if errors.size > 0 %}<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1">
<h2 id="error-summary-title">There is a problem</h2>
<ul>{% for e in errors %}<li>{% if e.href %}<a href="{{ e.href }}">{{ e.text }}</a>{% else %}{{ e.text }}{% endif %}</li>{% endfor %}</ul>
</div>{% endif %}
<form method="post" action="{{ action }}" novalidate>
<input type="hidden" name="_csrf" value="{{ csrf }}">
{% if view_prefix != "" %}<input type="hidden" name="view" value="{{ view_prefix }}">{% endif %}
{% for h in hidden %}<input type="hidden" name="{{ h.name }}" value="{{ h.value }}">
{% endfor %}{% for field in fields %}{% render 'account/field', field: field %}
{% endfor %}<button type="submit">{{ submit_label }}</button>
</form>
{% if links.size > 0 %}<ul class="account-links">{% for l in links %}<li><a href="{{ l.href }}">{{ l.label }}</a></li>{% endfor %}</ul>{% endif %}
</div>{% endblock %}`,

  // One field: a label (a legend for radio and checkbox groups), hint and error tied to the control
  // with aria-describedby, aria-invalid on the control(s) while it has an error.
  'account/field': `<div class="field{% if field.error %} field-invalid{% endif %}">
{% if field.kind == "radios" or field.kind == "checkboxes" %}<fieldset{% if field.describedby != "" %} aria-describedby="{{ field.describedby }}"{% endif %}>
<legend>{{ field.label }}{% if field.required %} (required){% endif %}</legend>
{% if field.hint %}<p class="hint" id="{{ field.id }}-hint">{{ field.hint }}</p>{% endif %}
{% if field.error %}<p class="field-error" id="{{ field.id }}-error">{{ field.error }}</p>{% endif %}
{% for o in field.options %}<div><input type="{% if field.kind == "radios" %}radio{% else %}checkbox{% endif %}" id="{{ field.id }}-{{ forloop.index }}" name="{{ field.name }}" value="{{ o.value }}"{% if o.checked %} checked{% endif %}{% if field.error %} aria-invalid="true"{% endif %}> <label for="{{ field.id }}-{{ forloop.index }}">{{ o.label }}</label></div>
{% endfor %}</fieldset>
{% else %}<label for="{{ field.id }}">{{ field.label }}{% if field.required %} (required){% endif %}</label>
{% if field.hint %}<p class="hint" id="{{ field.id }}-hint">{{ field.hint }}</p>{% endif %}
{% if field.error %}<p class="field-error" id="{{ field.id }}-error">{{ field.error }}</p>{% endif %}
{% if field.kind == "textarea" %}<textarea id="{{ field.id }}" name="{{ field.name }}" rows="4"{% if field.required %} required{% endif %}{% if field.describedby != "" %} aria-describedby="{{ field.describedby }}"{% endif %}{% if field.error %} aria-invalid="true"{% endif %}>{{ field.value }}</textarea>
{% elsif field.kind == "select" %}<select id="{{ field.id }}" name="{{ field.name }}"{% if field.required %} required{% endif %}{% if field.describedby != "" %} aria-describedby="{{ field.describedby }}"{% endif %}{% if field.error %} aria-invalid="true"{% endif %}><option value="">Choose…</option>{% for o in field.options %}<option value="{{ o.value }}"{% if o.checked %} selected{% endif %}>{{ o.label }}</option>{% endfor %}</select>
{% else %}<input type="{{ field.kind }}" id="{{ field.id }}" name="{{ field.name }}"{% if field.kind != "password" %} value="{{ field.value }}"{% endif %}{% if field.autocomplete %} autocomplete="{{ field.autocomplete }}"{% endif %}{% if field.step %} step="{{ field.step }}"{% endif %}{% if field.required %} required{% endif %}{% if field.describedby != "" %} aria-describedby="{{ field.describedby }}"{% endif %}{% if field.error %} aria-invalid="true"{% endif %}>
{% endif %}{% endif %}</div>`,

  // A notice without a form (registration closed, a refused request, a link that no longer works).
  'account/message': `{% layout 'layout' %}{% block content %}<div class="panel">
<h1>{{ heading }}</h1>
<p>{{ message }}</p>
{% if links.size > 0 %}<ul class="account-links">{% for l in links %}<li><a href="{{ l.href }}">{{ l.label }}</a></li>{% endfor %}</ul>{% endif %}
</div>{% endblock %}`,
};
