/** The events List's `filter` from the Activity screen's URL search (pure). */
export interface ActivitySearch {
  type?: string;
  /** RFC 3339 instants. */
  from?: string;
  to?: string;
  page_token?: string;
}

const quote = (s: string) => JSON.stringify(s);

export function eventsFilter(s: ActivitySearch): string | undefined {
  const parts: string[] = [];
  // `blog_post.*` (a catalogue wildcard) is every type starting `blog_post.`; `*` is no filter.
  if (s.type && s.type !== '*') parts.push(s.type.endsWith('.*') ? `type:${quote(s.type.slice(0, -1))}` : `type = ${quote(s.type)}`);
  if (s.from) parts.push(`occur_time >= ${quote(s.from)}`);
  if (s.to) parts.push(`occur_time <= ${quote(s.to)}`);
  return parts.length ? parts.join(' AND ') : undefined;
}

/** `<input type="datetime-local">` value (the person's zone) ⇄ RFC 3339 instant. */
export function localInputOf(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
export function isoOfLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** The admin path (below `/w/{w}/r/`) of an event's resource, when it still exists and lies under the website. */
export function adminSplatOf(resource: string | undefined, websiteId: string, type: string | undefined): string | undefined {
  const prefix = `websites/${websiteId}/`;
  if (!resource?.startsWith(prefix) || type?.endsWith('.deleted')) return undefined;
  return resource.slice(prefix.length);
}
