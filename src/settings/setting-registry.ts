/**
 * The registry of website settings (`setting_descriptors`): every path a website can configure,
 * its type, default, allowed values and whether a view may override it. Settings are addressed by
 * these dotted paths; a path outside the registry does not exist. Adding a descriptor is a code
 * change: every website at once answers its default until someone writes it.
 */
export type SettingType = 'STRING' | 'BOOLEAN' | 'INTEGER' | 'ENUM' | 'STRING_LIST';
/** Extra syntax a STRING must have. */
export type SettingFormat = 'EMAIL' | 'HOSTNAME';

export interface SettingDescriptor {
  path: string;
  description: string;
  type: SettingType;
  /** Value of a setting nobody wrote (null: not set). */
  default_value: string | number | boolean | string[] | null;
  /** ENUM members. */
  allowed_values?: readonly string[];
  /** INTEGER bounds. */
  min_value?: number;
  max_value?: number;
  /** STRING (and each STRING_LIST item) length bound. */
  max_length?: number;
  /** STRING_LIST size bound. */
  max_items?: number;
  format?: SettingFormat;
  /** Each STRING_LIST item must start with this text. */
  item_prefix?: string;
  /** Whether a view may hold its own value (e.g. a translated site name). */
  view_overridable: boolean;
}

export const CUSTOM_DOMAIN_PATH = 'general.web.custom_domain';
export const SITE_NAME_PATH = 'general.site.name';
export const MEDIA_REQUIRE_SIGNATURE_PATH = 'media.transforms.require_signature';

export const SETTING_DESCRIPTORS: readonly SettingDescriptor[] = [
  // The agent surface of every rendered site (docs/decisions.md, "Rendered websites: the agent surface"): each part on by default, each switchable.
  { path: 'agents.api.enabled', description: 'Whether the site serves its public read API of published content (`/api/v1/…`, with its OpenAPI document).', type: 'BOOLEAN', default_value: true, view_overridable: false },
  { path: 'agents.api_catalog.enabled', description: 'Whether the site serves `/.well-known/api-catalog` (RFC 9727) listing its read API and MCP server.', type: 'BOOLEAN', default_value: true, view_overridable: false },
  { path: 'agents.llms_txt.enabled', description: 'Whether the site serves `/llms.txt` and `/llms-full.txt` (per view: `/{url_prefix}/llms.txt`).', type: 'BOOLEAN', default_value: true, view_overridable: true },
  { path: 'agents.markdown.enabled', description: 'Whether pages and posts have Markdown twins (`{path}.md` and `Accept: text/markdown`).', type: 'BOOLEAN', default_value: true, view_overridable: true },
  { path: 'agents.mcp.enabled', description: 'Whether the site serves its read-only MCP server at `/mcp` (Streamable HTTP).', type: 'BOOLEAN', default_value: true, view_overridable: false },
  { path: 'analytics.enabled', description: 'Whether the site collects visitor analytics.', type: 'BOOLEAN', default_value: true, view_overridable: false },
  { path: 'analytics.raw_retention_days', description: 'Days raw analytics events (page views and named events) are kept; hourly roll-ups, which `:query` reads for older ranges, are kept beyond.', type: 'INTEGER', default_value: 30, min_value: 1, max_value: 731, view_overridable: false },
  { path: 'analytics.respect_privacy_signals', description: 'Visitors whose browser sends Do Not Track (`DNT: 1`) or Global Privacy Control (`Sec-GPC: 1`) are not counted.', type: 'BOOLEAN', default_value: true, view_overridable: false },
  { path: 'customer.account.email_confirmation_required', description: 'New customers confirm their email address before they can sign in.', type: 'BOOLEAN', default_value: false, view_overridable: false },
  { path: 'customer.account.registration_enabled', description: 'Visitors may create customer accounts.', type: 'BOOLEAN', default_value: true, view_overridable: false },
  { path: 'customer.password.min_length', description: 'Shortest password a customer may choose.', type: 'INTEGER', default_value: 8, min_value: 8, max_value: 128, view_overridable: false },
  { path: 'design.pagination.page_size', description: 'Items per page in listings the site renders (blog, search).', type: 'INTEGER', default_value: 12, min_value: 1, max_value: 100, view_overridable: true },
  { path: 'email.sender.address', description: 'From address of emails the platform sends for the site; unset uses the platform’s address.', type: 'STRING', format: 'EMAIL', max_length: 254, default_value: null, view_overridable: false },
  { path: 'email.sender.name', description: 'From name of emails the platform sends for the site; unset uses `general.site.name`.', type: 'STRING', max_length: 255, default_value: null, view_overridable: true },
  { path: 'general.contact.email', description: 'Public contact address shown on the site.', type: 'STRING', format: 'EMAIL', max_length: 254, default_value: null, view_overridable: false },
  { path: 'general.contact.phone', description: 'Public contact phone number shown on the site.', type: 'STRING', max_length: 64, default_value: null, view_overridable: false },
  { path: 'general.site.name', description: 'Name of the site as visitors see it (title bar, emails). Set from the website’s `display_name` when it is provisioned.', type: 'STRING', max_length: 255, default_value: '', view_overridable: true },
  {
    path: 'general.site.status',
    description: '`LIVE`: the site is public. `MAINTENANCE`: visitors see a maintenance page. `PASSWORD_PROTECTED`: visitors need the site password.',
    type: 'ENUM',
    allowed_values: ['LIVE', 'MAINTENANCE', 'PASSWORD_PROTECTED'],
    default_value: 'LIVE',
    view_overridable: false,
  },
  { path: 'general.site.tagline', description: 'Short line shown under the site name.', type: 'STRING', max_length: 255, default_value: '', view_overridable: true },
  {
    path: CUSTOM_DOMAIN_PATH,
    description: 'Host name the site answers on besides its platform hostname (e.g. `www.example.com`); writing it sets the website’s `custom_domain` (status back to `PENDING_DNS`), null removes it.',
    type: 'STRING',
    format: 'HOSTNAME',
    max_length: 253,
    default_value: null,
    view_overridable: false,
  },
  {
    path: MEDIA_REQUIRE_SIGNATURE_PATH,
    description:
      'When true, the public media read makes and serves only variants whose parameters carry a valid `sig` (from `media/{id}:sign_transform`), so the site publishes exactly the variants it uses; originals stay readable without one.',
    type: 'BOOLEAN',
    default_value: false,
    view_overridable: false,
  },
  { path: 'search.enabled', description: 'Whether the site serves its search: the `/search` page in every view, `/api/v1/search` and the `search` tool of `/mcp`.', type: 'BOOLEAN', default_value: true, view_overridable: false },
  // Content signals (contentsignals.org) in robots.txt and on Markdown answers: search and answers yes, training no by default.
  { path: 'seo.content_signals.ai_input', description: 'Content-Signal `ai-input`: whether AI systems may use the content as input to answers (retrieval, grounding).', type: 'BOOLEAN', default_value: true, view_overridable: false },
  { path: 'seo.content_signals.ai_train', description: 'Content-Signal `ai-train`: whether the content may be used to train or fine-tune AI models.', type: 'BOOLEAN', default_value: false, view_overridable: false },
  { path: 'seo.content_signals.search', description: 'Content-Signal `search`: whether the content may be used to build a search index and show links and snippets.', type: 'BOOLEAN', default_value: true, view_overridable: false },
  { path: 'seo.default_title_suffix', description: 'Shown after every page title, separated by a space (e.g. `| Bob’s Bakery`).', type: 'STRING', max_length: 70, default_value: '', view_overridable: true },
  { path: 'seo.robots.allow_indexing', description: 'Whether search engines may index the site.', type: 'BOOLEAN', default_value: true, view_overridable: false },
  {
    path: 'seo.robots.disallow_paths',
    description: 'URL paths robots.txt asks crawlers to skip; each starts with `/`.',
    type: 'STRING_LIST',
    item_prefix: '/',
    max_items: 50,
    max_length: 255,
    default_value: [],
    view_overridable: false,
  },
];

const BY_PATH = new Map(SETTING_DESCRIPTORS.map((d) => [d.path, d]));
export const descriptorOf = (path: string): SettingDescriptor | undefined => BY_PATH.get(path);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Checks a value against its descriptor; answers the value as stored (host names lowercased
 * without a trailing dot) or a description of what is wrong. Null is always accepted: it
 * returns the setting to its default.
 */
export function checkSettingValue(d: SettingDescriptor, value: unknown, opts: { platformDomain: string }): { value: unknown } | { problem: string } {
  if (value === null) return { value: null };
  switch (d.type) {
    case 'BOOLEAN':
      return typeof value === 'boolean' ? { value } : { problem: 'must be true or false' };
    case 'INTEGER':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return { problem: 'must be an integer' };
      if (d.min_value !== undefined && value < d.min_value) return { problem: `must be at least ${d.min_value}` };
      if (d.max_value !== undefined && value > d.max_value) return { problem: `must be at most ${d.max_value}` };
      return { value };
    case 'ENUM':
      return typeof value === 'string' && d.allowed_values!.includes(value) ? { value } : { problem: `must be one of ${d.allowed_values!.join(', ')}` };
    case 'STRING_LIST': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return { problem: 'must be an array of strings' };
      if (d.max_items !== undefined && value.length > d.max_items) return { problem: `must have at most ${d.max_items} items` };
      const bad = value.findIndex((v: string) => (d.max_length !== undefined && v.length > d.max_length) || (d.item_prefix !== undefined && !v.startsWith(d.item_prefix)));
      if (bad >= 0) return { problem: `item ${bad} must start with "${d.item_prefix ?? ''}" and have at most ${d.max_length} characters` };
      return { value: [...new Set(value)] };
    }
    case 'STRING': {
      if (typeof value !== 'string') return { problem: 'must be a string' };
      let text = value.trim();
      if (d.max_length !== undefined && text.length > d.max_length) return { problem: `must have at most ${d.max_length} characters` };
      if (d.format === 'EMAIL' && !EMAIL.test(text)) return { problem: 'must be an email address' };
      if (d.format === 'HOSTNAME') {
        text = text.toLowerCase().replace(/\.$/, '');
        if (!HOSTNAME.test(text)) return { problem: 'must be a host name such as www.example.com (letters, digits, hyphens; no scheme, port or path)' };
        const platform = opts.platformDomain.toLowerCase();
        if (text === platform || text.endsWith(`.${platform}`)) return { problem: `must not be under the platform domain ${platform}` };
      }
      return { value: text };
    }
  }
}
