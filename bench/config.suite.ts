/**
 * Site configuration reads (issue 6, configuration half): the virtual settings collection (the
 * registry merged with stored values, filtered and paged in memory), one setting, the theme
 * singleton, and the email template list.
 */
import { apiClient, TENANT } from './api.js';
import type { BenchSuite } from './suites.js';

export const configSuite: BenchSuite = {
  id: 'config',
  targets: ['config: settings List (every descriptor, merged in memory) and Get of one setting, theme and email templates at p99 ≤ 50 ms'],
  async run(ctx) {
    const w = `${ctx.base}${TENANT}/websites/${ctx.user.websiteId}`;
    const target = { kind: 'p99', maxMs: 50 } as const;
    // A few stored values, so the merge has something to merge.
    const api = apiClient(ctx.base, ctx.token);
    const seeded = await api.call('POST', `${TENANT}/websites/${ctx.user.websiteId}/settings:batch_update`, {
      requests: [
        { path: 'general.site.tagline', value: 'Bench' },
        { path: 'design.pagination.page_size', value: 24 },
        { path: 'seo.robots.disallow_paths', value: ['/cart'] },
      ],
    });
    ctx.log(`config: settings:batch_update answered ${seeded.status}`);
    await ctx.measure('config-settings-list', 'List settings (all, virtual)', `${w}/settings?page_size=100`, { target });
    await ctx.measure('config-settings-prefix', 'List settings filter path:"general."', `${w}/settings?filter=${encodeURIComponent('path:"general."')}`, { target });
    await ctx.measure('config-setting-get', 'Get setting general.site.name', `${w}/settings/general.site.name`, { target });
    await ctx.measure('config-theme-get', 'Get theme (singleton)', `${w}/theme`, { target });
    await ctx.measure('config-email-templates-list', 'List email templates', `${w}/email_templates`, { target });
  },
};
