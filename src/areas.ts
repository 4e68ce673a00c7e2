import type { Area } from './platform/area.js';
import { viewsArea } from './views/views.area.js';
import { aiArea } from './ai/ai.area.js';
import { aiBillingArea } from './ai-billing/ai-billing.area.js';

/**
 * Every area of SPEC built on the platform, in provisioning order (a step may rely on the steps of
 * areas listed before it). Adding an area is one line here; see docs/architecture.md.
 */
export const areas: readonly Area[] = [viewsArea, aiArea, aiBillingArea];
