import type TurndownService from 'turndown';
import type { SiteContext, SiteHtmlPage } from '../../platform/area.js';

/** Settings that switch the Markdown twins (issue 15, "Agent surface"). */
export const MARKDOWN_TWINS_SETTING = 'agents.markdown.enabled';

// Loaded on the first Markdown twin asked for: turndown and its DOM (domino) are some 8 MB of a
// server's idle memory otherwise (issue 24).
let turndown: Promise<TurndownService> | undefined;
const converter = () =>
  (turndown ??= import('turndown').then(({ default: Turndown }) => new Turndown({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' })));

/** A rough token count (about four characters per token for English text), for agents budgeting context. */
export const approximateTokens = (text: string) => Math.ceil(text.length / 4);

/**
 * The Markdown twin of a rendered page: YAML frontmatter (title, description, date, url) and the
 * page's main content converted from its sanitised HTML (turndown). Values are JSON strings, which
 * YAML reads as they are.
 */
export async function markdownTwin(ctx: SiteContext, page: SiteHtmlPage): Promise<string> {
  const { meta } = page;
  const front: Array<[string, string | undefined]> = [
    ['title', meta.title],
    ['description', meta.description],
    ['date', meta.publishTime ?? meta.updateTime],
    ['updated', meta.updateTime],
    ['url', `${ctx.origin}${meta.canonicalPath}`],
  ];
  const lines = front.filter(([, v]) => v !== undefined && v !== '').map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
  const body = (await converter()).turndown(page.contentHtml ?? '').trim();
  return `---\n${lines.join('\n')}\n---\n\n# ${meta.title.replace(/\n/g, ' ')}\n\n${body}\n`;
}

/** `/about` → `/about.md`; a view's home (`/` or `/de`) → `/index.md`, `/de/index.md`. */
export function markdownPathOf(sitePath: string): string {
  if (sitePath === '/') return '/index.md';
  return `${sitePath.replace(/\/$/, '')}.md`;
}

/**
 * Whether a request asks for the Markdown twin: a `.md` path, or `Accept` naming `text/markdown`
 * ahead of (or without) `text/html`.
 */
export function wantsMarkdown(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept
    .split(',')
    .map((part, i) => {
      const [type, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: type.trim(), q: q ? Number(q.slice(2)) || 0 : 1, i };
    })
    .filter((t) => t.q > 0);
  const md = types.find((t) => t.type === 'text/markdown');
  if (!md) return false;
  const html = types.find((t) => t.type === 'text/html' || t.type === '*/*' || t.type === 'text/*');
  return !html || md.q > html.q || (md.q === html.q && md.i < html.i);
}
