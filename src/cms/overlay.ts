import { read, write } from '../platform/auth/rights.js';
import type { SqlDialect } from '../platform/db/database.js';
import { InvalidArgument } from '../platform/errors.js';
import type { FieldDecl, ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { checkOverlaidView } from './cms.service.js';
import { sanitizeFields } from './content-html.js';

export interface OverlaySpec {
  /** e.g. `CmsPageView`. */
  singular: string;
  table: string;
  /** Overlaid resource: table, collection id and path parameter, e.g. `cms_pages`, `cms_page_id`. */
  parentTable: string;
  parentCollection: string;
  parentParam: string;
  /** Noun for descriptions, e.g. `page`. */
  noun: string;
  /** The overlaid resource's fields a view may override, declared as on the resource (never required). */
  fields: Record<string, FieldDecl>;
  /** Which of them hold rich-text HTML (sanitised on write). */
  richText: readonly string[];
  dialect: SqlDialect;
  /** Rights of the overlays (default: those of pages, `website.content`). */
  rights?: ResourceDecl['rights'];
}

/**
 * Per-view overlay of a content resource: `websites/{w}/{parent}/{id}/views/{view_id}`, one per
 * view, its id the view id. Written with `PATCH ?allow_missing=true` (creates it when absent);
 * a field counts as overridden only while its name is in `overridden`.
 */
export function overlayResource(spec: OverlaySpec): ResourceDecl {
  const { dialect } = spec;
  const names = Object.keys(spec.fields);
  const fields: Record<string, FieldDecl> = {};
  for (const [name, field] of Object.entries(spec.fields)) {
    const { behavior: _behavior, default: _default, ...rest } = field;
    fields[name] = { ...rest, description: `${field.description} Shown in this view only while \`${name}\` is in \`overridden\`.` };
  }
  fields.overridden = {
    type: 'string_list',
    description:
      `Names of the fields this view overrides (${names.map((n) => `\`${n}\``).join(', ')}); every other field shows the ${spec.noun}'s own value. ` +
      'Sending a field with a value adds its name, clearing it (null under `update_mask`) removes it; sending `overridden` itself sets the list as sent. ' +
      'A name removed from the list keeps its stored value, so adding the name back restores it. Every listed field must have a value.',
    maxItems: names.length,
    itemMinLength: 1,
    itemMaxLength: 64,
    default: [],
  };

  /** Works out `overridden` for the stored row; `sent` is the list when the request carried one. */
  function settleOverridden(row: Row, updated: readonly string[], sent: unknown, previous: string[]): void {
    let list: string[];
    if (Array.isArray(sent)) {
      list = [...new Set(sent as string[])];
      const unknown = list.filter((n) => !names.includes(n));
      if (unknown.length) throw InvalidArgument.field('overridden', `${unknown.join(', ')} cannot be overridden per view (only ${names.join(', ')})`);
    } else {
      const set = new Set(previous);
      for (const name of updated) {
        if (!names.includes(name)) continue;
        if (row[name] === null || row[name] === undefined) set.delete(name);
        else set.add(name);
      }
      list = names.filter((n) => set.has(n));
    }
    const empty = list.filter((n) => row[n] === null || row[n] === undefined);
    if (empty.length) throw InvalidArgument.field('overridden', `${empty.join(', ')} is listed but has no value in this view`);
    row.overridden = dialect.json(list);
  }

  return {
    collection: 'views',
    singular: spec.singular,
    pluralNoun: `${spec.singular}s`,
    table: spec.table,
    parentTable: spec.parentTable,
    description:
      `Per-view overlay of a ${spec.noun}: its id is the id of the view it overlays (a view of the same website). ` +
      `Create or replace it with \`PATCH …/views/{view_id}?allow_missing=true\` (201 when created). Overridable: ${names.join(', ')}.`,
    collectionPath: `websites/{website_id}/${spec.parentCollection}/{${spec.parentParam}}/views`,
    itemPath: `websites/{website_id}/${spec.parentCollection}/{${spec.parentParam}}/views/{view_id}`,
    fields,
    filterable: ['create_time', 'update_time', 'overridden'],
    sortable: ['create_time', 'update_time'],
    defaultOrder: 'create_time asc',
    methods: ['list', 'get', 'update', 'delete'],
    options: { validateOnly: true, allowMissing: true },
    rights: spec.rights ?? { read: read('website.content'), write: write('website.content') },
    hooks: {
      async beforeCreate(ctx: WriteContext, row: Row) {
        await checkOverlaidView(ctx, row.website_id, row.id);
        sanitizeFields(row, spec.richText);
        settleOverridden(row, Object.keys(ctx.input), ctx.input.overridden, []);
      },
      beforeUpdate(ctx: WriteContext, next: Row, previous: Row) {
        sanitizeFields(next, spec.richText.filter((f) => ctx.updatedPaths.includes(f)));
        const sent = ctx.updatedPaths.includes('overridden') ? (ctx.input.overridden ?? []) : undefined;
        settleOverridden(next, ctx.updatedPaths, sent, dialect.readJson<string[]>(previous.overridden) ?? []);
      },
    },
  };
}
