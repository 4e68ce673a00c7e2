import type { SiteSettings } from '../../platform/area.js';

/** The website settings that switch each part of the agent surface (all default true). */
export const AGENT_SWITCHES = {
  markdown: 'agents.markdown.enabled',
  llmsTxt: 'agents.llms_txt.enabled',
  api: 'agents.api.enabled',
  apiCatalog: 'agents.api_catalog.enabled',
  mcp: 'agents.mcp.enabled',
} as const;

/** Whether a part of the agent surface is on (anything but an explicit false is on). */
export const enabled = (settings: SiteSettings, part: keyof typeof AGENT_SWITCHES) => settings.get(AGENT_SWITCHES[part]) !== false;

/**
 * The Content-Signal value (contentsignals.org) of a site: `search=yes, ai-input=yes, ai-train=no`
 * from the `seo.content_signals.*` settings. A setting never written answers its default
 * (search and ai-input yes, ai-train no); a missing value falls back to the same.
 */
export function contentSignal(settings: SiteSettings): string {
  const yes = (path: string, fallback: boolean) => ((settings.get(path) ?? fallback) === true ? 'yes' : 'no');
  return [
    `search=${yes('seo.content_signals.search', true)}`,
    `ai-input=${yes('seo.content_signals.ai_input', true)}`,
    `ai-train=${yes('seo.content_signals.ai_train', false)}`,
  ].join(', ');
}
