import { randomBytes } from 'node:crypto';
import { read, write } from '../platform/auth/rights.js';
import { AlreadyExists, InvalidArgument } from '../platform/errors.js';
import type { Operations } from '../platform/jobs/operations.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { PROVISION_WEBSITE } from './provisioning.js';
import { isCodeTaken } from './websites.repo.js';

/** A DNS label: the website's platform hostname is `{code}.{PLATFORM_DOMAIN}`. */
export const CODE_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$';
/** Hostnames the platform keeps for itself. */
const RESERVED_CODES = new Set(['www', 'api', 'app', 'admin', 'mail', 'smtp', 'ftp', 'status', 'docs', 'help', 'support', 'cdn', 'static', 'assets']);
/** BCP 47 language tag (`en`, `de`, `pt-BR`, `zh-Hant-TW`). */
export const LANGUAGE_PATTERN = '^[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8}){0,3}$';

export interface WebsiteDeps {
  operations: Operations;
  platformDomain: string;
  /** PUBLIC_BASE_URL: its port (when it names one) is where the sites answer too. */
  publicBaseUrl: string;
}

/**
 * Public address of a website on the platform. The sites are served by the same listener as the
 * API, so a port PUBLIC_BASE_URL names (`http://localhost:8080`) belongs in the link as well.
 */
export function websiteUrl(code: string, platformDomain: string, publicBaseUrl: string): string {
  const local = platformDomain === 'localhost' || platformDomain.endsWith('.localhost');
  const { port } = new URL(publicBaseUrl);
  return `${local ? 'http' : 'https'}://${code}.${platformDomain}${port ? `:${port}` : ''}`;
}

/** A readable, unique-enough code from a display name: `Bob's Bakery` → `bobs-bakery-x7k2`. */
export function codeFromName(name: string): string {
  const base = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const suffix = randomBytes(4).toString('hex').slice(0, 6);
  return base ? `${base}-${suffix}` : `site-${suffix}`;
}

function checkTimeZone(zone: string): void {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw InvalidArgument.field('time_zone', 'is not an IANA time zone (e.g. Europe/Berlin)');
  }
}

/** Writes the provisioning Operation for a new website row (same transaction). */
export async function startProvisioning(ctx: WriteContext, row: Row, operations: Operations, extra: Record<string, unknown> = {}): Promise<string> {
  const operationId = await operations.enqueue(
    ctx.trx,
    { type: PROVISION_WEBSITE, accountId: row.account_id, websiteId: row.id, payload: extra },
    ctx.now,
  );
  ctx.afterCommit(() => operations.wake());
  return operationId;
}

/**
 * Websites: listed under a project, addressed as `websites/{id}` (the root of every
 * website-scoped resource). Create answers 201 with an `operation` that provisions the site.
 */
export function websiteResource(deps: WebsiteDeps): ResourceDecl {
  return {
    collection: 'websites',
    singular: 'Website',
    table: 'websites',
    description: 'A website. Create starts a provisioning Operation; `provisioning_status` is PENDING until it ends (ACTIVE or FAILED).',
    collectionPath: 'projects/{project_id}/websites',
    itemPath: 'websites/{website_id}',
    fields: {
      display_name: { type: 'string', description: 'Name of the website.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
      code: {
        notNull: true,
        type: 'string',
        description: 'DNS label of the platform hostname `{code}.{PLATFORM_DOMAIN}`; unique; derived from `display_name` when absent; immutable.',
        behavior: ['IMMUTABLE'],
        pattern: CODE_PATTERN,
        maxLength: 63,
      },
      default_language: { type: 'string', description: 'BCP 47 tag of the default view, e.g. `en`.', pattern: LANGUAGE_PATTERN, maxLength: 35, default: 'en' },
      time_zone: { type: 'string', description: 'IANA time zone of the site (analytics, schedules).', maxLength: 64, default: 'UTC' },
      provisioning_status: {
        type: 'enum',
        description: 'PENDING while the provisioning Operation runs, then ACTIVE, or FAILED (the error is on the Operation).',
        values: ['PENDING', 'ACTIVE', 'FAILED'],
        behavior: ['OUTPUT_ONLY'],
      },
      parent: { type: 'string', description: 'The owning project, `projects/{project}`.', behavior: ['OUTPUT_ONLY'], column: false },
      website_url: { type: 'string', description: 'Where the website answers on the platform domain.', behavior: ['OUTPUT_ONLY'], column: false },
      operation: { type: 'string', description: 'Name of the provisioning Operation to poll.', behavior: ['OUTPUT_ONLY'], column: false },
    },
    filterable: ['create_time', 'display_name', 'code', 'provisioning_status', 'default_language'],
    sortable: ['create_time', 'display_name', 'code'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, requestId: true, validateOnly: true },
    rights: { read: read('website'), write: write('account.projects') },
    hooks: {
      // A membership limited to some websites lists only those (the others answer NOT_FOUND anyway).
      listVisible: (ctx) => (ctx.access?.websiteIds?.length ? { column: 'id', values: ctx.access.websiteIds } : undefined),
      async beforeCreate(ctx, row) {
        if (row.time_zone) checkTimeZone(row.time_zone);
        if (row.code) {
          if (RESERVED_CODES.has(row.code)) throw InvalidArgument.field('code', 'is reserved by the platform');
          if (await isCodeTaken(ctx.trx, row.code)) throw new AlreadyExists(`code ${row.code} is already taken`, 'code');
        } else {
          row.code = codeFromName(row.display_name);
        }
        row.provisioning_status = 'PENDING';
        row.operation_id = await startProvisioning(ctx, row, deps.operations);
      },
      beforeUpdate(ctx, next) {
        if (ctx.updatedPaths.includes('time_zone')) checkTimeZone(next.time_zone);
      },
      present(row, resource) {
        resource.parent = `projects/${row.project_id}`;
        resource.website_url = websiteUrl(row.code, deps.platformDomain, deps.publicBaseUrl);
        if (row.operation_id) resource.operation = `websites/${row.id}/operations/${row.operation_id}`;
      },
    },
  };
}
