import { read, write } from '../platform/auth/rights.js';
import type { JsonSchema } from '../platform/resource/schemas.js';
import { fieldSourcesSchema, overriddenFieldsSchema } from '../cms/index.js';
import { AlreadyExists } from '../platform/errors.js';

/**
 * Rights of every blog resource: the section `website.blog` of the permission tree (below `website`,
 * so whoever reads or writes the website reads or writes the blog), like every content area.
 */
export const BLOG_RIGHTS = { read: read('website.blog'), write: write('website.blog') };

/** Characters of an excerpt derived from the content. */
export const DERIVED_EXCERPT_LENGTH = 300;

/**
 * The start of (sanitised) rich text as plain text: tags become spaces, whitespace collapses, cut at
 * a word near `DERIVED_EXCERPT_LENGTH` with `…`. Entities stay encoded, so the text is safe as HTML.
 */
export function deriveExcerpt(html: string | null | undefined): string | undefined {
  if (!html) return undefined;
  const text = html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  if (text.length <= DERIVED_EXCERPT_LENGTH) return text;
  const cut = text.slice(0, DERIVED_EXCERPT_LENGTH);
  const atWord = cut.lastIndexOf(' ') > DERIVED_EXCERPT_LENGTH / 2 ? cut.slice(0, cut.lastIndexOf(' ')) : cut;
  // Never end inside an entity (`&amp;` cut to `&am`).
  return `${atWord.replace(/&[#a-zA-Z0-9]*$/, '')}…`;
}

/** Numbered candidates a derived url_key tries (`bread`, `bread-2`, …) before falling back to the row's id. */
const DERIVED_KEY_TRIES = 20;

/**
 * A url_key derived from a title or display name, made free the way Ghost and WordPress do: the slug
 * itself, else `slug-2`, `slug-3`, …, else `slug-<end of the id>`. `claim` answers whether a candidate
 * is free (and, where the check locks, holds it for the transaction). A key the client sent is never
 * renamed: only derived keys come here.
 */
export async function freeDerivedKey(base: string, id: string, claim: (candidate: string) => Promise<boolean>): Promise<string> {
  for (let n = 1; n <= DERIVED_KEY_TRIES; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (await claim(candidate)) return candidate;
  }
  const last = `${base}-${id.toLowerCase().replace(/[^a-z0-9]/g, '').slice(-8) || 'x'}`;
  if (await claim(last)) return last;
  throw new AlreadyExists(`url_key "${base}" and its numbered variants are taken; send a url_key`, 'url_key');
}

type Kind = 'text' | 'time' | 'list';

/** Answer schema of a blog `:resolve`: the common header plus the resource's fields by kind. */
export function resolvedSchema(title: string, description: string, fields: Record<string, Kind>, overridable: readonly string[]): JsonSchema {
  const text = (d: string): JsonSchema => ({ type: 'string', maxLength: 500_000, description: d });
  const properties: Record<string, JsonSchema> = {
    name: text('The resource read.'),
    id: text('Its id.'),
    view_id: text('The view read as (the default view when none was named).'),
    overridden_fields: overriddenFieldsSchema(),
    field_sources: fieldSourcesSchema(overridable),
    is_visible: { type: 'boolean', description: 'Whether the site shows it in this view.' },
    update_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'Latest change of the resource or overlay shown.' },
  };
  for (const [name, kind] of Object.entries(fields)) {
    properties[name] =
      kind === 'list'
        ? { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 64 }, description: `\`${name}\` as stored.` }
        : kind === 'time'
          ? { type: 'string', format: 'date-time', maxLength: 40, description: `\`${name}\`.` }
          : text(`\`${name}\`, as the view shows it.`);
  }
  return { type: 'object', title, description, properties };
}
