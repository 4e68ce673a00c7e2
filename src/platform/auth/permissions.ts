/**
 * The permission tree (SPEC 5.5): every section a route may declare as its right. One source of
 * truth: `read()`/`write()` in `rights.ts` refuse a section that is not here (the app does not start),
 * the `permissions` catalogue serves it, and grants of account roles, members and invitations may only
 * name these sections. A grant on a section covers everything beneath it.
 */
export interface PermissionSection {
  /** Dotted path, also the resource id (`website.content`). */
  section: string;
  display_name: string;
  description: string;
}

export const PERMISSION_SECTIONS: readonly PermissionSection[] = [
  { section: 'account', display_name: 'Account', description: 'The account itself, its projects and websites (creating, renaming, deleting them).' },
  { section: 'account.settings', display_name: 'Account settings', description: 'Name and settings of the account.' },
  { section: 'account.billing', display_name: 'Billing', description: 'Balance, limits, ledger and usage of the account.' },
  { section: 'account.members', display_name: 'Members', description: 'Members, invitations and account roles: who belongs to the account and what they may do.' },
  { section: 'account.projects', display_name: 'Projects and websites', description: 'Projects of the account and the websites inside them (create, rename, delete).' },
  { section: 'ai', display_name: 'AI', description: 'AI agents, connections, instructions, executions and AI billing of the account.' },
  { section: 'website', display_name: 'Websites', description: 'Everything inside a website; reading it is needed to open a website at all.' },
  { section: 'website.content', display_name: 'Content', description: 'Pages, page groups, blocks and their per-view overlays.' },
  { section: 'website.navigation', display_name: 'Navigation', description: 'Menus and their items.' },
  { section: 'website.views', display_name: 'Views', description: 'Views (locales, URL prefixes) of a website and their settings overrides.' },
  { section: 'website.customers', display_name: 'Customers', description: 'Visitors with an account on the website, their groups and attributes.' },
  { section: 'website.media', display_name: 'Media', description: 'Image library and folders.' },
  { section: 'website.settings', display_name: 'Website settings', description: 'Website settings, custom domain and email templates.' },
  { section: 'website.theme', display_name: 'Theme', description: 'Theme variables, logo, favicon, main menu and footer.' },
  { section: 'website.blog', display_name: 'Blog', description: 'Posts, categories, tags and authors.' },
  { section: 'website.editorial', display_name: 'Editorial', description: 'Editorial plan, backlog, calendar and editorial AI runs.' },
  { section: 'website.analytics', display_name: 'Analytics', description: 'Metrics and the dashboard.' },
];

const BY_SECTION = new Map(PERMISSION_SECTIONS.map((s) => [s.section, s]));

/** Whether `section` is in the tree. `''` (no section) is used by platform catalogues only. */
export function isSection(section: string): boolean {
  return BY_SECTION.has(section);
}

/** The section's parent (`website` for `website.content`), or undefined for a top-level section. */
export function parentSection(section: string): string | undefined {
  const dot = section.lastIndexOf('.');
  return dot < 0 ? undefined : section.slice(0, dot);
}

/** Depth in the tree: 0 for `account`, 1 for `account.members`. */
export function sectionLevel(section: string): number {
  return section.split('.').length - 1;
}
