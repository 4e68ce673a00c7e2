/** The search of the pages and blocks lists (kept in the URL) and its API filter; pure, loaded with the routes. */
export interface ListSearch {
  q?: string;
  active?: 'true' | 'false';
  view?: string;
}

export const validateContentListSearch = (s: Record<string, unknown>): ListSearch => ({
  q: typeof s.q === 'string' && s.q ? s.q : undefined,
  active: s.active === 'true' || s.active === 'false' ? s.active : undefined,
  view: typeof s.view === 'string' && s.view ? s.view : undefined,
});

/** The AIP-160 filter of the list's search. */
export function contentListFilter(search: ListSearch): string | undefined {
  const terms: string[] = [];
  if (search.q) terms.push(`title:${JSON.stringify(search.q)}`);
  if (search.active) terms.push(`is_active = ${search.active}`);
  if (search.view) terms.push(`visible_view_ids:${JSON.stringify(search.view)}`);
  return terms.length ? terms.join(' AND ') : undefined;
}

