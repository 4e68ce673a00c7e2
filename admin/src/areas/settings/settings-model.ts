/** Settings as the screen groups them (pure: tested in test/admin-unit/settings-model.test.ts). */
export type SettingValue = string | number | boolean | string[] | null;

export interface DescriptorLike {
  path?: string;
  id: string;
}

export interface SettingGroup<D extends DescriptorLike> {
  /** First segment of the dotted path: `general`, `seo`, … */
  section: string;
  subsections: Array<{ name: string; descriptors: D[] }>;
}

/** Descriptors by the first two segments of their path (`general.site.name` → general / site), in path order. */
export function groupSettings<D extends DescriptorLike>(descriptors: readonly D[]): SettingGroup<D>[] {
  const sorted = [...descriptors].sort((a, b) => (pathOf(a) < pathOf(b) ? -1 : pathOf(a) > pathOf(b) ? 1 : 0));
  const groups: SettingGroup<D>[] = [];
  for (const d of sorted) {
    const [section, sub = section] = pathOf(d).split('.');
    let g = groups.find((x) => x.section === section);
    if (!g) groups.push((g = { section, subsections: [] }));
    let s = g.subsections.find((x) => x.name === sub);
    if (!s) g.subsections.push((s = { name: sub, descriptors: [] }));
    s.descriptors.push(d);
  }
  return groups;
}

const pathOf = (d: DescriptorLike) => d.path ?? d.id;

const ACRONYMS = new Set(['api', 'seo', 'mcp', 'url', 'dns', 'ai', 'smtp', 'rss', 'html', 'css', 'id']);
const SPECIAL: Record<string, string> = { llms_txt: 'llms.txt', robots_txt: 'robots.txt' };

/** `default_title_suffix` → "Default title suffix"; `seo` → "SEO"; `llms_txt` → "llms.txt". */
export function humanize(segment: string): string {
  if (SPECIAL[segment]) return SPECIAL[segment];
  const words = segment
    .replace(/[._]/g, ' ')
    .trim()
    .split(/\s+/)
    .map((w) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : w));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Whether two setting values are the same (lists by their items). */
export function sameValue(a: SettingValue | undefined, b: SettingValue | undefined): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);
  return (a ?? null) === (b ?? null);
}
