import { PERMISSION_SECTIONS, parentSection, sectionLevel } from '../platform/auth/permissions.js';
import { BUILT_IN_ROLES, BUILT_IN_ROLE_GRANTS, read, type BuiltInRole } from '../platform/auth/rights.js';
import { NotFound } from '../platform/errors.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { GRANT_SCHEMA, MAX_GRANTS } from './grants.js';

const out = { behavior: ['OUTPUT_ONLY'] as const };
// The catalogues change only with a release of the platform.
const CATALOGUE_ETAG = '1';

const PERMISSIONS = PERMISSION_SECTIONS.map((s) => ({
  name: `permissions/${s.section}`,
  id: s.section,
  display_name: s.display_name,
  description: s.description,
  parent: parentSection(s.section) ?? '',
  level: sectionLevel(s.section),
  etag: CATALOGUE_ETAG,
}));

/** `permissions` (SPEC 5.5): the permission tree, a read-only platform catalogue. */
export const permissionResource: ResourceDecl = {
  collection: 'permissions',
  singular: 'Permission',
  table: 'permissions',
  catalogue: true,
  description:
    'The permission tree (read-only platform catalogue): every section a route requires READ or WRITE on. The id is the dotted section (`website.content`). ' +
    'A grant of READ or WRITE on a section covers every section beneath it; WRITE implies READ. Every route of this API names the section it needs in its description; ' +
    'a member whose grants do not reach it gets 403 PERMISSION_DENIED.',
  collectionPath: 'permissions',
  itemPath: 'permissions/{permission_id}',
  fields: {
    display_name: { type: 'string', description: 'Label.', ...out },
    description: { type: 'string', description: 'What the section covers.', ...out },
    parent: { type: 'string', description: 'The enclosing section (`website` for `website.content`); empty for a top-level section.', ...out },
    level: { type: 'integer', description: 'Depth in the tree: 0 for a top-level section.', minimum: 0, maximum: 10, ...out },
  },
  filterable: ['parent', 'level'],
  sortable: ['level', 'display_name'],
  defaultOrder: 'level asc',
  methods: ['list', 'get'],
  rights: { read: read(''), write: read('') },
  virtual: {
    all: async () => PERMISSIONS,
    get: async (_ctx, params) => {
      const found = PERMISSIONS.find((p) => p.id === params.permission_id);
      if (!found) throw new NotFound(`permission ${params.permission_id}`);
      return found;
    },
  },
};

const ROLE_TEXT: Record<BuiltInRole, { display_name: string; description: string }> = {
  administrator: { display_name: 'Administrator', description: 'Everything in the account: members, billing, projects, every website.' },
  editor: { display_name: 'Editor', description: 'Reads everything in the account and writes everything inside its websites.' },
  restricted: { display_name: 'Restricted', description: 'Holds nothing by itself: only the grants of its membership (or invitation).' },
};

const ROLES = BUILT_IN_ROLES.map((role) => ({
  name: `roles/${role}`,
  id: role,
  ...ROLE_TEXT[role],
  grants: BUILT_IN_ROLE_GRANTS[role].map((g) => ({ ...g })),
  etag: CATALOGUE_ETAG,
}));

/** `roles` (SPEC 5.5): the built-in roles present in every account, a read-only platform catalogue. */
export const roleResource: ResourceDecl = {
  collection: 'roles',
  singular: 'Role',
  table: 'roles',
  catalogue: true,
  description:
    'The built-in roles of every account (read-only): `roles/administrator` (everything), `roles/editor` (reads everything, writes `website` and beneath), ' +
    '`roles/restricted` (only the grants of its membership). Accounts define more in `account_roles`.',
  collectionPath: 'roles',
  itemPath: 'roles/{role_id}',
  fields: {
    display_name: { type: 'string', description: 'Label.', ...out },
    description: { type: 'string', description: 'What the role may do.', ...out },
    grants: { type: 'json', description: 'What the role holds: sections of the permission tree with READ or WRITE.', schema: { type: 'array', maxItems: MAX_GRANTS, items: GRANT_SCHEMA }, ...out },
  },
  filterable: ['display_name'],
  sortable: ['display_name'],
  defaultOrder: 'display_name asc',
  methods: ['list', 'get'],
  rights: { read: read(''), write: read('') },
  virtual: {
    all: async () => ROLES,
    get: async (_ctx, params) => {
      const found = ROLES.find((r) => r.id === params.role_id);
      if (!found) throw new NotFound(`role ${params.role_id}`);
      return found;
    },
  },
};
