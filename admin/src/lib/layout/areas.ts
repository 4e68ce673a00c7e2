/**
 * The navigation, by SPEC's areas. Each entry is a collection of the tenant API (its path below
 * `websites/{id}/` or `accounts/{id}/`), shown by the generated resource screens at
 * `/w/{websiteId}/r/{collection}` or `/a/{accountId}/r/{collection}`, and the permission section
 * its List needs (READ), so entries the member cannot reach are left out.
 */
export type Scope = 'website' | 'account';

export interface NavEntry {
  label: string;
  collection: string;
  scope: Scope;
  section: string;
}

export interface NavArea {
  label: string;
  entries: NavEntry[];
}

const w = (label: string, collection: string, section: string): NavEntry => ({ label, collection, scope: 'website', section });
const a = (label: string, collection: string, section: string): NavEntry => ({ label, collection, scope: 'account', section });

export const NAV_AREAS: NavArea[] = [
  {
    label: 'Content',
    entries: [
      w('Pages', 'cms_pages', 'website.content'),
      w('Blocks', 'cms_blocks', 'website.content'),
      w('Menus', 'navigation_menus', 'website.navigation'),
    ],
  },
  {
    label: 'Blog',
    entries: [
      w('Posts', 'blog_posts', 'website.blog'),
      w('Categories', 'blog_categories', 'website.blog'),
      w('Tags', 'blog_tags', 'website.blog'),
      w('Authors', 'blog_authors', 'website.blog'),
    ],
  },
  {
    label: 'Editorial',
    entries: [
      w('Plan', 'editorial_plan', 'website.editorial'),
      w('Backlog', 'editorial_backlog_items', 'website.editorial'),
      w('Calendar', 'editorial_calendar_entries', 'website.editorial'),
    ],
  },
  {
    label: 'Customers',
    entries: [
      w('Customers', 'customers', 'website.customers'),
      w('Groups', 'customer_groups', 'website.customers'),
      w('Attributes', 'customer_attributes', 'website.customers'),
      w('Attribute groups', 'customer_attribute_groups', 'website.customers'),
    ],
  },
  {
    label: 'Media',
    entries: [w('Library', 'media', 'website.media'), w('Folders', 'media_folders', 'website.media')],
  },
  {
    label: 'AI',
    entries: [
      a('Agents', 'ai_agents', 'ai'),
      a('Instructions', 'ai_instructions', 'ai'),
      a('Runs', 'ai_executions', 'ai'),
      a('Connections', 'ai_connections', 'ai'),
      a('Billing', 'ai_billing', 'ai'),
      a('Usage', 'ai_usage_records', 'ai'),
      a('Ledger', 'ai_ledger_entries', 'ai'),
    ],
  },
  {
    label: 'Analytics',
    entries: [w('Analytics', 'analytics', 'website.analytics'), w('Dashboard', 'dashboard', 'website.analytics')],
  },
  {
    label: 'Settings',
    entries: [
      w('Settings', 'settings', 'website.settings'),
      w('Theme', 'theme', 'website.theme'),
      w('Views', 'views', 'website.views'),
      w('Custom domain', 'custom_domain', 'website.settings'),
      w('Email templates', 'email_templates', 'website.settings'),
      w('Search index', 'search_index', 'website.settings'),
      w('Webhooks', 'webhooks', 'website.settings'),
      // Events: any member may list them (each sees what its role reads); 'website' is what opening a website needs.
      w('Activity', 'events', ''),
    ],
  },
  {
    label: 'Team',
    entries: [
      a('Members', 'members', 'account.members'),
      a('Invitations', 'invitations', 'account.members'),
      a('Roles', 'account_roles', 'account.members'),
      a('Projects', 'projects', 'account.projects'),
    ],
  },
];
