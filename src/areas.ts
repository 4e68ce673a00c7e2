import type { Area } from './platform/area.js';
import { mediaArea } from './media/index.js';
import { customDomainArea } from './custom-domain/index.js';
import { emailTemplatesArea } from './email-templates/index.js';
import { settingsArea } from './settings/index.js';
import { themeArea } from './theme/index.js';
import { viewsArea } from './views/index.js';
import { cmsArea } from './cms/index.js';
import { navigationArea } from './navigation/index.js';
import { customersArea } from './customers/index.js';
import { aiArea } from './ai/index.js';
import { aiBillingArea } from './ai-billing/index.js';
import { blogArea } from './blog/index.js';
import { accessArea } from './access/index.js';
import { editorialArea } from './editorial/index.js';
import { analyticsArea } from './analytics/index.js';
import { dashboardArea } from './dashboard/index.js';
import { searchArea } from './search/index.js';
import { webhooksArea } from './webhooks/index.js';
import { eventsArea } from './platform/events-area/events.area.js';

/**
 * Every area of SPEC built on the platform, in provisioning order (a step may rely on the steps of
 * areas listed before it). Adding an area is one line here; see docs/architecture.md.
 */
export const areas: readonly Area[] = [
  viewsArea,
  customersArea,
  mediaArea,
  cmsArea,
  navigationArea,
  emailTemplatesArea,
  settingsArea,
  customDomainArea,
  themeArea,
  aiArea,
  aiBillingArea,
  blogArea,
  editorialArea,
  analyticsArea,
  dashboardArea,
  accessArea,
  searchArea,
  webhooksArea,
  eventsArea,
];
