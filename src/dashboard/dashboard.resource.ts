import { read, write } from '../platform/auth/rights.js';
import type { SqlDialect } from '../platform/db/database.js';
import { InvalidArgument } from '../platform/errors.js';
import type { ResourceDecl, Row } from '../platform/resource/declaration.js';
import { DEFAULT_WIDGETS, MAX_WIDGETS, WIDGET_SCHEMA, isDefaultLayout, normaliseLayout, presentWidget, type SentWidget, type Widget } from './layout.js';

/**
 * A website's analytics dashboard (`websites/{w}/dashboard`, a singleton): widgets of
 * `dashboard_widget_types` laid out on a 12-column grid. Nobody wrote it yet: the default layout at
 * revision 0; `:reset` puts the default layout back.
 */
export function dashboardResource(deps: { dialect: SqlDialect }): ResourceDecl {
  const { dialect } = deps;
  return {
    kind: 'singleton',
    collection: 'dashboard',
    singular: 'Dashboard',
    table: 'dashboards',
    description:
      'The website’s analytics dashboard (singleton; Get, Update and `:reset`): `widgets` of `dashboard_widget_types` placed on a grid of 12 columns. ' +
      `At most ${MAX_WIDGETS} widgets; each fits the grid (\`position.x + size.width\` ≤ 12), has a size within its type’s \`min_size\`/\`max_size\`, ` +
      'settings valid against its type’s `settings_schema` (left-out settings take their defaults) and an id unique in the layout; no two widgets share a cell. ' +
      'Every broken rule is INVALID_ARGUMENT naming the field (`widgets[2].settings.limit`). `widgets` is replaced whole when sent; cleared through ' +
      '`update_mask` it returns to the default layout. A never-written dashboard answers the default layout without timestamps, etag `0`.',
    collectionPath: 'websites/{website_id}/dashboard',
    itemPath: 'websites/{website_id}/dashboard',
    fields: {
      widgets: {
        type: 'json',
        description: `The widgets, in the order sent (at most ${MAX_WIDGETS}).`,
        schema: { type: 'array', maxItems: MAX_WIDGETS, items: WIDGET_SCHEMA },
        default: DEFAULT_WIDGETS,
      },
      is_default: { type: 'boolean', description: 'Whether `widgets` is the default layout (never written, reset, or written back as it was).', behavior: ['OUTPUT_ONLY'], column: false },
    },
    filterable: [],
    sortable: [],
    defaultOrder: '',
    methods: ['get', 'update'],
    options: { validateOnly: true },
    rights: { read: read('website.analytics'), write: write('website.analytics') },
    hooks: {
      beforeUpdate(ctx, next) {
        if (!ctx.updatedPaths.includes('widgets')) return;
        const { widgets, violations } = normaliseLayout(dialect.readJson<SentWidget[]>(next.widgets));
        if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
        next.widgets = dialect.json(widgets);
      },
      present(row: Row, resource) {
        const stored = (resource.widgets as Widget[] | undefined) ?? [];
        resource.widgets = stored.map(presentWidget);
        resource.is_default = isDefaultLayout(stored);
      },
    },
    customMethods: [
      {
        verb: 'reset',
        on: 'item',
        access: 'write',
        summary: 'Put the default dashboard layout back',
        description:
          'Replaces `widgets` with the default layout (the one a never-written dashboard answers) and answers the dashboard with its new etag. ' +
          '`If-Match` (or `etag` in the body) makes it conditional: 409 ABORTED when the dashboard changed since.',
        mutate(_ctx, next) {
          next.widgets = dialect.json(DEFAULT_WIDGETS);
        },
      },
    ],
  };
}
