import { either, read, write } from '../platform/auth/rights.js';
import { FailedPrecondition } from '../platform/errors.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { projectHasWebsites } from '../websites/index.js';

/** Projects group an account's websites. Listed under the account, addressed as `projects/{id}`. */
export const projectResource: ResourceDecl = {
  collection: 'projects',
  singular: 'Project',
  table: 'projects',
  description:
    'A group of websites inside an account. Readable with READ on `account`, or on `website`: a member whose role holds only website sections finds its websites through the projects (a membership limited to some websites still lists only those under `websites`).',
  collectionPath: 'accounts/{account_id}/projects',
  itemPath: 'projects/{project_id}',
  fields: {
    display_name: { type: 'string', description: 'Name of the project.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
    description: { type: 'string', description: 'Free text.', maxLength: 2000 },
    parent: { type: 'string', description: 'The owning account, `accounts/{account}`.', behavior: ['OUTPUT_ONLY'], column: false },
  },
  filterable: ['create_time', 'display_name'],
  sortable: ['create_time', 'display_name'],
  defaultOrder: 'create_time desc',
  methods: ['list', 'get', 'create', 'update', 'delete'],
  options: { clientId: true, requestId: true, validateOnly: true, force: true },
  // READ on `website` is enough to read projects: without it a member holding website sections only
  // (no READ on `account`) could not walk accounts → projects → websites to find its websites.
  rights: { read: either(read('account'), read('website')), write: write('account.projects') },
  hooks: {
    present(row, resource) {
      resource.parent = `accounts/${row.account_id}`;
    },
    async beforeDelete(ctx, row, force) {
      if (force) return;
      if (await projectHasWebsites(ctx.trx, row.id)) throw new FailedPrecondition('PROJECT_NOT_EMPTY', 'the project still has websites; delete them first or pass force=true');
    },
  },
};
