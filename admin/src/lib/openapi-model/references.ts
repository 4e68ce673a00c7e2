import { nonNull, schemaTypes } from './schema.js';
import type { Reference, ResourceModel } from './types.js';

/** Fields that end in `_id` but name no resource of the API. */
const NOT_REFERENCES = new Set(['request_id', 'source_id', 'external_id', 'id']);

/** The word stem an id param or field names: `blog_category_id` → `blog_category`, `tag_ids` → `tag`. */
const stemOf = (name: string) => name.replace(/_ids?$/, '');

/** Collections a resource of `owner` may reference: its own parent chain first, then the wider scopes. */
function reachable(owner: ResourceModel, resource: ResourceModel): boolean {
  if (resource.kind !== 'collection' || !resource.list) return false;
  if (resource.scope === 'platform') return true;
  // A reference names a resource of the same tenant: the website's own collections, or its account's.
  if (resource.scope === 'website') return owner.scope === 'website';
  if (resource.scope === 'account') return owner.scope === 'account' || owner.scope === 'website';
  return false;
}

const lastWord = (stem: string) => stem.slice(stem.lastIndexOf('_') + 1);

function score(field: string, description: string, owner: ResourceModel, candidate: ResourceModel): number {
  const stem = stemOf(field);
  const idStem = stemOf(candidate.idParam ?? '');
  let points = 0;
  // The description names the collection (`ai_executions` id), unless as a template to copy from.
  if (new RegExp(`(?<!copy (?:the )?)\`${candidate.id}\``).test(description)) points += 1000;
  if (stem === idStem) points += 500;
  else if (idStem.endsWith(`_${stem}`)) points += 300 - (idStem.length - stem.length);
  else if (stem.endsWith(`_${idStem}`) || stem === candidate.id) points += 200;
  else if (lastWord(stem) === lastWord(idStem)) points += 100 - idStem.length; // `manual_group_ids` → `customer_group_id`
  else if (points === 0) return 0;
  // Prefer a collection at the top of its scope (a website's `views`) to the per-resource overlays
  // that share its id param (`blog_posts/{p}/views`), then siblings, then the same scope.
  if (candidate.parentParams.length <= 1) points += 100;
  if (candidate.parent === owner.parent) points += 50;
  if (candidate.scope === owner.scope) points += 20;
  // Prefer the collection sharing the owner's own prefix (`customer_groups` for `customers`).
  let common = 0;
  while (common < candidate.id.length && candidate.id[common] === owner.id[common]) common++;
  return points + common;
}

/**
 * Fields of a resource holding ids of other resources (`*_id`, `*_ids`), each mapped to the
 * collection it names, by name: the id param of a reachable collection matches the field
 * (`tag_ids` → `blog_tags` by `blog_tag_id`, `feature_image_media_id` → `media`), a collection the
 * field's description names in backticks wins, then the nearest parent. The document does not carry
 * the resource engine's `refersTo`, so this is the best the admin can do from it.
 */
export function resolveReferences(owner: ResourceModel, all: readonly ResourceModel[]): Record<string, Reference> {
  const out: Record<string, Reference> = {};
  const schemas = [owner.createSchema, owner.updateSchema, owner.schema];
  const fields = new Map<string, { description: string; many: boolean }>();
  for (const schema of schemas) {
    for (const [name, raw] of Object.entries(schema?.properties ?? {})) {
      if (!/_ids?$/.test(name) || NOT_REFERENCES.has(name) || fields.has(name)) continue;
      const prop = nonNull(raw);
      const types = schemaTypes(prop);
      const many = types.includes('array');
      if (many ? !schemaTypes(prop.items ?? {}).includes('string') : !types.includes('string')) continue;
      fields.set(name, { description: prop.description ?? '', many });
    }
  }
  for (const [name, { description, many }] of fields) {
    // A field naming the owner's own path param (an agent version's `ai_agent_id`) is the URL's, not a choice.
    if (owner.parentParams.includes(name)) continue;
    // `parent_id` of a tree (categories, folders, navigation items) names a row of the same collection.
    if (name === 'parent_id' && owner.kind === 'collection') {
      out[name] = { collection: owner.key, many };
      continue;
    }
    let best: ResourceModel | undefined;
    let bestScore = 0;
    for (const candidate of all) {
      if (!reachable(owner, candidate)) continue;
      const s = score(name, description, owner, candidate);
      if (s > bestScore) [best, bestScore] = [candidate, s];
    }
    if (best) out[name] = { collection: best.key, many };
  }
  return out;
}
