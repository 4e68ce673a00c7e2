import type { SiteContext, SiteEntry, SiteSettings, SiteView } from '../../platform/area.js';
import { markdownPathOf } from './markdown.js';
import { enabled } from './signals.js';
import { sitePath } from './content.js';

/** Most entries `/llms.txt` lists (all areas together); the rest are left out with a note. */
export const LLMS_TXT_MAX_ENTRIES = 2_000;
/** Most entries `/llms-full.txt` inlines, and the most characters of Markdown it carries. */
export const LLMS_FULL_MAX_ENTRIES = 200;
export const LLMS_FULL_MAX_CHARS = 2_000_000;

/** Section headings by entry kind, in this order; other kinds go under "Optional" (the format's skippable section). */
const SECTIONS: Array<[kind: string, heading: string]> = [
  ['page', 'Pages'],
  ['post', 'Blog'],
];

/** One line of Markdown link text: brackets and line breaks would end it early. */
const linkText = (text: string) => text.replace(/[\r\n]+/g, ' ').replace(/([[\]\\])/g, '\\$1').trim();
const noteText = (text: string) => text.replace(/[\r\n]+/g, ' ').trim();

/** Reads at most `max` entries of an inventory, and whether more were left. */
export async function takeEntries(inventory: AsyncIterable<SiteEntry>, max: number): Promise<{ entries: SiteEntry[]; truncated: boolean }> {
  const entries: SiteEntry[] = [];
  for await (const entry of inventory) {
    if (entries.length === max) return { entries, truncated: true };
    entries.push(entry);
  }
  return { entries, truncated: false };
}

export interface LlmsTxtInput {
  ctx: SiteContext;
  view: SiteView;
  settings: SiteSettings;
  /** Settings of the website as the default view reads them (the website-wide switches). */
  siteSettings: SiteSettings;
  entries: SiteEntry[];
  truncated: boolean;
}

/** The site's name and tagline as the view shows them. */
function header(input: LlmsTxtInput): string[] {
  const name = String(input.settings.get('general.site.name') || input.ctx.website.displayName);
  const tagline = String(input.settings.get('general.site.tagline') ?? '').trim();
  const lines = [`# ${noteText(name)}`, ''];
  if (tagline) lines.push(`> ${noteText(tagline)}`, '');
  return lines;
}

/**
 * `/llms.txt` of one view (llmstxt.org): H1 with the site name, a blockquote with the tagline, a
 * paragraph saying what the file is, then H2 sections of link lists — pages, blog posts, then
 * "Optional" for the rest (categories, tags, …) and the machine interfaces (read API, MCP) and the
 * other views' files. Links point at the Markdown twins when twins are on, else at the pages.
 */
export function llmsTxt(input: LlmsTxtInput): string {
  const { ctx, view, settings, siteSettings, entries } = input;
  const twins = enabled(settings, 'markdown');
  const link = (e: SiteEntry) => `${ctx.origin}${twins ? markdownPathOf(e.path) : e.path}`;
  const lines = header(input);
  lines.push(
    `This file lists what ${ctx.origin}${sitePath(view, '/')} publishes in ${view.displayName} (${view.locale})` +
      (twins ? ', each linked as Markdown (the same URL with `.md`, or `Accept: text/markdown`).' : '.') +
      ` The full text of these pages is in ${ctx.origin}${sitePath(view, '/llms-full.txt')}.`,
    '',
  );
  const byKind = new Map<string, SiteEntry[]>();
  for (const e of entries) byKind.set(e.kind, [...(byKind.get(e.kind) ?? []), e]);
  const item = (e: SiteEntry) => `- [${linkText(e.title || e.path)}](${link(e)})${e.description ? `: ${noteText(e.description)}` : ''}`;
  for (const [kind, heading] of SECTIONS) {
    const list = byKind.get(kind);
    if (!list?.length) continue;
    lines.push(`## ${heading}`, '', ...list.map(item), '');
    byKind.delete(kind);
  }
  const optional: string[] = [...byKind.values()].flat().map(item);
  if (enabled(siteSettings, 'api')) optional.push(`- [Read API (OpenAPI 3.1)](${ctx.origin}/api/v1/openapi.json): published pages, posts and menus as JSON`);
  if (enabled(siteSettings, 'mcp')) optional.push(`- [MCP server](${ctx.origin}/mcp): read-only tools over Streamable HTTP (list_pages, get_page, list_posts, get_post, get_navigation)`);
  for (const other of ctx.views) if (other.id !== view.id) optional.push(`- [${linkText(other.displayName)} (${other.locale})](${ctx.origin}${sitePath(other, '/llms.txt')})`);
  if (optional.length) lines.push('## Optional', '', ...optional, '');
  if (input.truncated) lines.push(`_This list stops after ${LLMS_TXT_MAX_ENTRIES} entries; ${ctx.origin}/sitemap.xml lists everything._`, '');
  return lines.join('\n');
}

/**
 * `/llms-full.txt` of one view: the header of llms.txt, then every entry's Markdown twin (as
 * `twinOf` reads it; entries without one are skipped) separated by rules, at most
 * LLMS_FULL_MAX_ENTRIES entries and LLMS_FULL_MAX_CHARS characters.
 */
export async function llmsFullTxt(input: LlmsTxtInput, twinOf: (entry: SiteEntry) => Promise<string | undefined>): Promise<string> {
  const parts = [header(input).join('\n')];
  let size = parts[0].length;
  let inlined = 0;
  let stopped = input.truncated;
  for (const entry of input.entries) {
    if (inlined === LLMS_FULL_MAX_ENTRIES) {
      stopped = true;
      break;
    }
    const twin = await twinOf(entry);
    if (twin === undefined) continue;
    // The twin's frontmatter would read as a rule and a heading here; its URL leads the section instead.
    const markdown = twin.replace(/^---\n[\s\S]*?\n---\n+/, '');
    if (size + markdown.length > LLMS_FULL_MAX_CHARS) {
      stopped = true;
      break;
    }
    parts.push(`${markdown.trim()}\n\nSource: ${input.ctx.origin}${entry.path}\n`);
    size += markdown.length;
    inlined++;
  }
  if (stopped) {
    parts.push(`_This file stops after ${inlined} entries (at most ${LLMS_FULL_MAX_ENTRIES} entries and ${LLMS_FULL_MAX_CHARS} characters); ${input.ctx.origin}${sitePath(input.view, '/llms.txt')} lists the rest._\n`);
  }
  return parts.join('\n---\n\n');
}
