import type { Migration } from 'kysely';
import * as foundation from './2026-11-22-0001-foundation.js';
import * as views from './2026-11-22-0002-views.js';
import * as content from './2026-11-22-0600-content.js';
import * as media from './2026-11-22-0400-media.js';
import * as config from './2026-11-22-0700-config.js';
import * as customers from './2026-11-22-0300-customers.js';
import * as ai from './2026-11-22-0500-ai.js';
import * as listIndexes from './2026-11-23-0800-list-indexes.js';
import * as listVersions from './2026-11-23-0810-list-versions.js';
import * as usersMail from './2026-11-23-1000-users-mail.js';
import * as access from './2026-11-23-1010-access.js';
import * as blog from './2026-11-23-1020-blog.js';
import * as listRowCounts from './2026-11-26-1120-list-row-counts.js';
import * as editorial from './2026-11-26-1400-editorial.js';
import * as site from './2026-11-26-1410-site.js';
import * as siteVisitors from './2026-11-26-1440-site-visitors.js';
import * as analyticsEvents from './2026-11-26-1500-analytics-events.js';
import * as analyticsRollups from './2026-11-26-1510-analytics-rollups.js';
import * as dashboard from './2026-11-26-1520-dashboard.js';
import * as search from './2026-11-26-1530-search.js';
import * as analyticsDailyRollups from './2026-11-27-0400-analytics-daily-rollups.js';
import * as limitCounters from './2026-11-27-2000-limit-counters.js';
import * as limitCountersUnlogged from './2026-11-27-2010-limit-counters-unlogged.js';
import * as limitCountersAdmitted from './2026-11-27-2020-limit-counters-admitted.js';
import * as cacheVersions from './2026-11-27-2100-cache-versions.js';
import * as events from './2026-11-27-2200-events.js';
import * as webhooks from './2026-11-28-0100-webhooks.js';
import * as cacheNotices from './2026-11-28-0200-cache-notices.js';
import * as customerGroupListVersions from './2026-11-28-0300-customer-group-list-versions.js';

/** Every migration, keyed by its frozen name; Kysely applies them in name order. */
export const migrations: Record<string, Migration> = {
  '2026-11-22-0001-foundation': foundation,
  '2026-11-22-0002-views': views,
  '2026-11-22-0600-content': content,
  '2026-11-22-0400-media': media,
  '2026-11-22-0700-config': config,
  '2026-11-22-0300-customers': customers,
  '2026-11-22-0500-ai': ai,
  '2026-11-23-0800-list-indexes': listIndexes,
  '2026-11-23-0810-list-versions': listVersions,
  '2026-11-23-1000-users-mail': usersMail,
  '2026-11-23-1010-access': access,
  '2026-11-23-1020-blog': blog,
  '2026-11-26-1120-list-row-counts': listRowCounts,
  '2026-11-26-1400-editorial': editorial,
  '2026-11-26-1410-site': site,
  '2026-11-26-1440-site-visitors': siteVisitors,
  '2026-11-26-1500-analytics-events': analyticsEvents,
  '2026-11-26-1510-analytics-rollups': analyticsRollups,
  '2026-11-26-1520-dashboard': dashboard,
  '2026-11-26-1530-search': search,
  '2026-11-27-0400-analytics-daily-rollups': analyticsDailyRollups,
  '2026-11-27-2000-limit-counters': limitCounters,
  '2026-11-27-2010-limit-counters-unlogged': limitCountersUnlogged,
  '2026-11-27-2020-limit-counters-admitted': limitCountersAdmitted,
  '2026-11-27-2100-cache-versions': cacheVersions,
  '2026-11-27-2200-events': events,
  '2026-11-28-0100-webhooks': webhooks,
  '2026-11-28-0200-cache-notices': cacheNotices,
  '2026-11-28-0300-customer-group-list-versions': customerGroupListVersions,
};
