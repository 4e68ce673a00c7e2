/**
 * The boundaries of docs/architecture.md ("Boundaries", issue 30), checked on the sources without a
 * database: scripts/architecture-measures.mjs parses src/ (oxc-parser) and this file holds its
 * findings to the rules. Run `npm run measure:architecture -- --list` to see every offending line.
 *
 * KNOWN lists what was already there when a rule was introduced. They may only shrink: a new
 * offender fails the test (naming file and line); an entry that is fixed is reported, and should be
 * deleted from its list. The goal is empty lists.
 */
import { describe, expect, it } from 'vitest';
import { analyseSources, MAX_LINES, offenderCounts, type MeasureItem } from '../../scripts/architecture-measures.mjs';

/** Offender key → how many times it may occur (an import `file -> target`, a file, an import edge `a -> b` of a cycle). */
const KNOWN: Record<string, Record<string, number>> = {
  // Imports into another area's folder that do not name its index.ts (rule 4 of the plan).
  pastSurface: {
    "src/ai-billing/ai-billing.area.ts -> src/ai/ai.area.ts": 1,
    "src/ai-billing/billing.service.ts -> src/ai/catalogue.ts": 1,
    "src/ai-billing/billing.service.ts -> src/ai/providers/provider.ts": 1,
    "src/ai/ai.area.ts -> src/ai-billing/billing.service.ts": 1,
    "src/ai/catalogue.ts -> src/ai-billing/money.ts": 1,
    "src/ai/execution.resource.ts -> src/ai-billing/billing.service.ts": 1,
    "src/ai/execution.resource.ts -> src/ai-billing/money.ts": 1,
    "src/ai/execution.worker.ts -> src/ai-billing/billing.service.ts": 1,
    "src/ai/execution.worker.ts -> src/media/images.ts": 1,
    "src/ai/routing.ts -> src/ai-billing/billing.service.ts": 1,
    "src/analytics/analytics.repo.ts -> src/settings/setting-registry.ts": 1,
    "src/analytics/analytics.repo.ts -> src/settings/settings.service.ts": 1,
    "src/app.ts -> src/accounts/account.resource.ts": 1,
    "src/app.ts -> src/admin-app/admin-app.ts": 1,
    "src/app.ts -> src/operations/operation.routes.ts": 1,
    "src/app.ts -> src/projects/project.resource.ts": 1,
    "src/app.ts -> src/signup/signup.routes.ts": 1,
    "src/app.ts -> src/signup/signup.service.ts": 1,
    "src/app.ts -> src/site/hosts.ts": 1,
    "src/app.ts -> src/site/site.surface.ts": 1,
    "src/app.ts -> src/site/versions.ts": 1,
    "src/app.ts -> src/users/user.resource.ts": 1,
    "src/app.ts -> src/users/user.routes.ts": 1,
    "src/app.ts -> src/users/user.service.ts": 1,
    "src/app.ts -> src/websites/provisioning.ts": 1,
    "src/app.ts -> src/websites/website.resource.ts": 1,
    "src/areas.ts -> src/access/access.area.ts": 1,
    "src/areas.ts -> src/ai-billing/ai-billing.area.ts": 1,
    "src/areas.ts -> src/ai/ai.area.ts": 1,
    "src/areas.ts -> src/analytics/analytics.area.ts": 1,
    "src/areas.ts -> src/blog/blog.area.ts": 1,
    "src/areas.ts -> src/cms/cms.area.ts": 1,
    "src/areas.ts -> src/custom-domain/custom-domain.area.ts": 1,
    "src/areas.ts -> src/customers/customers.area.ts": 1,
    "src/areas.ts -> src/dashboard/dashboard.area.ts": 1,
    "src/areas.ts -> src/editorial/editorial.area.ts": 1,
    "src/areas.ts -> src/email-templates/email-templates.area.ts": 1,
    "src/areas.ts -> src/media/media.area.ts": 1,
    "src/areas.ts -> src/navigation/navigation.area.ts": 1,
    "src/areas.ts -> src/search/search.area.ts": 1,
    "src/areas.ts -> src/settings/settings.area.ts": 1,
    "src/areas.ts -> src/theme/theme.area.ts": 1,
    "src/areas.ts -> src/views/views.area.ts": 1,
    "src/areas.ts -> src/webhooks/webhooks.area.ts": 1,
    "src/blog/blog-author.resource.ts -> src/cms/resolve.ts": 1,
    "src/blog/blog-category.resource.ts -> src/cms/cms-page.resource.ts": 1,
    "src/blog/blog-category.resource.ts -> src/cms/cms.service.ts": 1,
    "src/blog/blog-category.resource.ts -> src/cms/resolve.ts": 1,
    "src/blog/blog-post.resource.ts -> src/cms/cms-page.resource.ts": 1,
    "src/blog/blog-post.resource.ts -> src/cms/cms.service.ts": 1,
    "src/blog/blog-post.resource.ts -> src/cms/content-html.ts": 1,
    "src/blog/blog-post.resource.ts -> src/cms/resolve.ts": 1,
    "src/blog/blog-tag.resource.ts -> src/cms/resolve.ts": 1,
    "src/blog/blog-taxonomy.ts -> src/cms/resolve.ts": 1,
    "src/blog/blog.area.ts -> src/cms/cms.service.ts": 1,
    "src/blog/blog.area.ts -> src/cms/overlay.ts": 1,
    "src/blog/blog.area.ts -> src/cms/resolve.ts": 1,
    "src/blog/blog.shared.ts -> src/cms/view-overlays.ts": 1,
    "src/blog/blog.site.ts -> src/cms/cms-page.resource.ts": 1,
    "src/blog/blog.site.ts -> src/cms/view-overlays.ts": 1,
    "src/blog/blog.site.ts -> src/media/media.site.ts": 1,
    "src/blog/published-posts.ts -> src/cms/resolve.ts": 1,
    "src/cms/cms.site.ts -> src/media/media.site.ts": 1,
    "src/cms/cms.site.ts -> src/views/view.resource.ts": 1,
    "src/cms/view-overlays.ts -> src/views/view.resource.ts": 1,
    "src/customers/customers.site.ts -> src/email-templates/website-mail.ts": 1,
    "src/customers/shared.ts -> src/websites/website.resource.ts": 1,
    "src/dashboard/layout.ts -> src/analytics/query.ts": 1,
    "src/dashboard/widget-types.ts -> src/analytics/query.ts": 1,
    "src/editorial/editorial.area.ts -> src/ai/follow-ups.ts": 1,
    "src/editorial/editorial.service.ts -> src/ai/template.ts": 1,
    "src/email-templates/email-template.resource.ts -> src/websites/provisioning.ts": 1,
    "src/media/media.service.ts -> src/settings/setting-registry.ts": 1,
    "src/media/media.service.ts -> src/settings/settings.service.ts": 1,
    "src/navigation/navigation-item.resource.ts -> src/cms/cms.service.ts": 1,
    "src/navigation/navigation-menu.resource.ts -> src/cms/cms-block.resource.ts": 1,
    "src/navigation/navigation-menu.resource.ts -> src/cms/cms.service.ts": 1,
    "src/navigation/navigation.area.ts -> src/cms/cms.service.ts": 1,
    "src/search/indexer.ts -> src/blog/blog.area.ts": 1,
    "src/search/indexer.ts -> src/blog/blog.repo.ts": 1,
    "src/search/indexer.ts -> src/blog/blog.site.ts": 1,
    "src/search/indexer.ts -> src/blog/published-posts.ts": 1,
    "src/search/indexer.ts -> src/cms/cms.site.ts": 1,
    "src/search/indexer.ts -> src/cms/resolve.ts": 1,
    "src/search/indexer.ts -> src/site/site.surface.ts": 1,
    "src/search/indexer.ts -> src/site/versions.ts": 1,
    "src/search/search.repo.ts -> src/site/hosts.ts": 1,
    "src/settings/settings.area.ts -> src/custom-domain/custom-domain.resource.ts": 1,
    "src/signup/signup.routes.ts -> src/websites/website.resource.ts": 1,
    "src/signup/signup.service.ts -> src/users/user.service.ts": 1,
    "src/site/agents/content.ts -> src/blog/published-posts.ts": 1,
    "src/site/agents/content.ts -> src/cms/published-pages.ts": 1,
    "src/site/agents/content.ts -> src/navigation/published-navigation.ts": 1,
    "src/site/agents/read-api.ts -> src/cms/cms-block.resource.ts": 1,
    "src/site/agents/read-api.ts -> src/cms/cms-page.resource.ts": 1,
    "src/site/chrome.ts -> src/cms/cms.site.ts": 1,
    "src/site/chrome.ts -> src/media/media.site.ts": 1,
    "src/site/chrome.ts -> src/navigation/navigation.site.ts": 1,
    "src/site/chrome.ts -> src/theme/theme-variables.ts": 1,
    "src/site/chrome.ts -> src/theme/theme.site.ts": 1,
    "src/site/design.ts -> src/media/media.site.ts": 1,
    "src/site/design.ts -> src/theme/theme-variables.ts": 1,
    "src/site/design.ts -> src/theme/theme.site.ts": 1,
    "src/site/liquid-tags.ts -> src/cms/cms.site.ts": 1,
    "src/site/site.surface.ts -> src/theme/theme-preview.site.ts": 1,
    "src/views/view.resource.ts -> src/websites/website.resource.ts": 1,
  },
  // Imports from src/platform/** into a folder outside the platform: none may be added.
  platformImportsArea: {},
  // Import edges between folders that lie on a cycle (one loop through platform/ subfolders, ai <-> ai-billing).
  folderCycles: {
    "ai -> ai-billing": 1,
    "ai-billing -> ai": 1,
    "platform/events -> platform/resource": 1,
    "platform/events -> src/platform/area.ts": 1,
    "platform/http -> platform/resource": 1,
    "platform/jobs -> platform/events": 1,
    "platform/jobs -> platform/resource": 1,
    "platform/limits -> platform/http": 1,
    "platform/mail -> platform/jobs": 1,
    "platform/mail -> platform/resource": 1,
    "platform/resource -> platform/events": 1,
    "platform/resource -> platform/http": 1,
    "src/platform/area.ts -> platform/events": 1,
    "src/platform/area.ts -> platform/http": 1,
    "src/platform/area.ts -> platform/jobs": 1,
    "src/platform/area.ts -> platform/limits": 1,
    "src/platform/area.ts -> platform/mail": 1,
    "src/platform/area.ts -> platform/resource": 1,
  },
  // Import edges between files of one folder that lie on a cycle.
  fileCycles: {
    "src/blog/blog.area.ts -> src/blog/blog.site.ts": 1,
    "src/blog/blog.site.ts -> src/blog/blog.area.ts": 1,
    "src/platform/resource/engine.ts -> src/platform/resource/virtual.ts": 1,
    "src/platform/resource/virtual.ts -> src/platform/resource/engine.ts": 1,
  },
  // Source files over MAX_LINES lines.
  longFiles: {
    "src/blog/blog.site.ts": 1,
    "src/customers/customers.site.ts": 1,
    "src/platform/db/database.ts": 1,
    "src/platform/query/filter.ts": 1,
    "src/platform/resource/engine.ts": 1,
  },
  // SQL statements in area code outside *.repo.ts, per file (declaration files, services, site renderers, ...).
  sqlOutsideRepo: {
    "src/accounts/account.resource.ts": 2,
    "src/analytics/rollups.ts": 5,
    "src/analytics/visitors.ts": 3,
    "src/app.ts": 2,
    "src/blog/category-posts.routes.ts": 3,
    "src/cms/cms-page-group.resource.ts": 3,
    "src/cms/cms-page.resource.ts": 1,
    "src/cms/cms.area.ts": 1,
    "src/cms/cms.service.ts": 7,
    "src/cms/cms.site.ts": 5,
    "src/cms/published-pages.ts": 1,
    "src/cms/resolve.ts": 2,
    "src/cms/view-overlays.ts": 5,
    "src/custom-domain/custom-domain.resource.ts": 6,
    "src/customers/customer-attribute-group.resource.ts": 1,
    "src/customers/customer-attribute.resource.ts": 2,
    "src/customers/customer-group.resource.ts": 1,
    "src/customers/customer-sessions.service.ts": 8,
    "src/customers/customer.resource.ts": 1,
    "src/customers/customers.site.ts": 8,
    "src/editorial/editorial-backlog-item.resource.ts": 2,
    "src/editorial/editorial-calendar-entry.resource.ts": 1,
    "src/editorial/editorial-plan.resource.ts": 3,
    "src/editorial/editorial.area.ts": 6,
    "src/editorial/editorial.service.ts": 4,
    "src/email-templates/email-template.resource.ts": 1,
    "src/email-templates/website-mail.ts": 1,
    "src/media/media-folder.resource.ts": 5,
    "src/media/media.resource.ts": 1,
    "src/media/media.service.ts": 1,
    "src/media/media.site.ts": 1,
    "src/navigation/navigation.area.ts": 3,
    "src/navigation/navigation.site.ts": 2,
    "src/navigation/published-navigation.ts": 2,
    "src/projects/project.resource.ts": 1,
    "src/settings/settings.area.ts": 1,
    "src/settings/settings.service.ts": 7,
    "src/signup/signup.service.ts": 4,
    "src/site/chrome.ts": 1,
    "src/site/hosts.ts": 2,
    "src/site/site.surface.ts": 1,
    "src/site/versions.ts": 1,
    "src/theme/theme.resource.ts": 4,
    "src/theme/theme.site.ts": 1,
    "src/users/user.resource.ts": 1,
    "src/users/user.service.ts": 28,
    "src/views/view.resource.ts": 7,
    "src/webhooks/delivery.worker.ts": 3,
    "src/websites/provisioning.ts": 3,
    "src/websites/website.resource.ts": 1,
  },
};

const analysis = analyseSources();

/** The items of measure `key` whose offender key is new or occurs more often than KNOWN allows. */
function check(key: string): { added: string[]; remaining: number } {
  const now = offenderCounts(analysis, key);
  const known = KNOWN[key] ?? {};
  const grown = new Set(Object.keys(now).filter((k) => now[k] > (known[k] ?? 0)));
  const items = analysis.measures.find((m) => m.key === key)!.items;
  const where = (it: MeasureItem) => (it.file ? `${it.file}:${it.line}: ${it.text}` : it.text);
  // A key may occur a known number of times (SQL statements of a file): say how many now and then.
  const added: string[] = [...grown].filter((k) => known[k]).map((k) => `${k}: ${now[k]} now, ${known[k]} known; its lines:`);
  for (const it of items) {
    const keys = it.edges ?? [it.key ?? it.text];
    for (const k of keys.filter((x) => grown.has(x))) {
      if (it.sites) added.push(`${k} (cycle ${it.text})`);
      else added.push(`${where(it)}${keys.length > 1 || k !== it.file ? `  [${k}]` : ''}`);
    }
  }
  const fixed = Object.keys(known).filter((k) => (now[k] ?? 0) < known[k]);
  const remaining = Object.values(now).reduce((a, b) => a + b, 0);
  console.info(
    `architecture ${key}: ${remaining} known offender(s) remain` +
      (fixed.length ? `; fixed, delete from KNOWN.${key}: ${fixed.map((f) => JSON.stringify(f)).join(', ')}` : ''),
  );
  return { added, remaining };
}

describe('architecture', () => {
  it('parses every source file and knows the owning area of every table', () => {
    const count = (key: string) => analysis.measures.find((m) => m.key === key)!.items.map((i) => i.file ?? i.text);
    expect(count('parseErrors'), 'files the parser refuses').toEqual([]);
    expect(count('unmapped'), 'tables missing from TABLE_OWNERS in scripts/architecture-measures.mjs').toEqual([]);
  });

  it('imports another area only through its index.ts, and the platform imports no area', () => {
    expect(check('pastSurface').added, "import through the area's index.ts (export what you need from there)").toEqual([]);
    expect(check('platformImportsArea').added, 'the platform may not import an area: move the shared piece down into src/platform').toEqual([]);
  });

  it('has no import cycle between folders nor between the files of one folder', () => {
    expect(check('folderCycles').added, 'a new import closes a cycle between folders').toEqual([]);
    expect(check('fileCycles').added, 'a new import closes a cycle between files of one folder').toEqual([]);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    expect(check('longFiles').added, 'split the file by reason to change').toEqual([]);
  });

  it('runs SQL in area code only inside *.repo.ts', () => {
    expect(check('sqlOutsideRepo').added, "move the statement into the area's *.repo.ts").toEqual([]);
  });
});
