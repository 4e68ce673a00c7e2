/** The posts list's search (kept in the URL) and its API filter; pure, loaded with the routes. */
export interface PostListSearch {
  q?: string;
  state?: 'DRAFT' | 'SCHEDULED' | 'PUBLISHED';
  category?: string;
  tag?: string;
  author?: string;
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

export const validatePostListSearch = (s: Record<string, unknown>): PostListSearch => ({
  q: str(s.q),
  state: s.state === 'DRAFT' || s.state === 'SCHEDULED' || s.state === 'PUBLISHED' ? s.state : undefined,
  category: str(s.category),
  tag: str(s.tag),
  author: str(s.author),
});

export function postListFilter(s: PostListSearch): string | undefined {
  const terms: string[] = [];
  if (s.q) terms.push(`title:${JSON.stringify(s.q)}`);
  if (s.state) terms.push(`state = ${s.state}`);
  if (s.category) terms.push(`category_ids:${JSON.stringify(s.category)}`);
  if (s.tag) terms.push(`tag_ids:${JSON.stringify(s.tag)}`);
  if (s.author) terms.push(`author_ids:${JSON.stringify(s.author)}`);
  return terms.length ? terms.join(' AND ') : undefined;
}
