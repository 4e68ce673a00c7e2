import type { RequestContext } from '../platform/auth/context.js';
import { read, write } from '../platform/auth/rights.js';
import type { Database } from '../platform/db/database.js';
import type { Db, Trx } from '../platform/db/schema.js';
import { Aborted, FailedPrecondition, NotFound, Unavailable } from '../platform/errors.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { etagMatches } from '../platform/resource/engine.js';
import { etagOf } from '../platform/resource/mapper.js';
import { customDomainOf, lockCustomDomain, releaseDomainElsewhere, writeCustomDomain, type CustomDomainRow } from './custom-domain.repo.js';
import { lookupCname } from './dns-check.js';
import { websiteCodeInAccount } from '../websites/index.js';

export const DOMAIN_STATUSES = ['NOT_CONFIGURED', 'PENDING_DNS', 'CONNECTED', 'MISCONFIGURED'] as const;

/** The website a custom domain belongs to, as its platform hostname needs it. */
interface WebsiteCode {
  id: string;
  code: string;
}

export interface CustomDomainDeps {
  database: Database;
  platformDomain: string;
  dnsResolver: string[];
  dnsTimeoutMs: number;
}

/** The stored projection row, created on first need (revision 0 = never written). */
async function lockRow(trx: Trx, accountId: string, websiteId: string, now: number, dialect: Database['dialect']): Promise<CustomDomainRow> {
  return lockCustomDomain(trx, dialect, accountId, websiteId, now);
}

async function saveRow(trx: Trx, previous: CustomDomainRow, changes: Partial<CustomDomainRow>, now: number): Promise<CustomDomainRow> {
  const next: CustomDomainRow = {
    ...previous,
    ...changes,
    revision: Number(previous.revision) + 1,
    create_time: Number(previous.revision) === 0 ? now : previous.create_time,
    update_time: Math.max(now, Number(previous.update_time)),
  };
  const { id, ...set } = next;
  await writeCustomDomain(trx, id, set);
  return next;
}

/**
 * Writes the website's custom domain (the setting `general.web.custom_domain` calls this in its
 * own transaction): a new domain starts over at PENDING_DNS, null leaves NOT_CONFIGURED.
 */
export function customDomainWriteHook(dialect: Database['dialect']) {
  return async (trx: Trx, ctx: RequestContext, websiteId: string, value: unknown) => {
    const domain = typeof value === 'string' && value ? value : null;
    const row = await lockRow(trx, ctx.access!.accountId, websiteId, ctx.now, dialect);
    if ((row.domain ?? null) === domain) return;
    await saveRow(
      trx,
      row,
      { domain, status: domain ? 'PENDING_DNS' : 'NOT_CONFIGURED', status_detail: null, last_verify_time: null },
      ctx.now,
    );
  };
}

/**
 * The read-only singleton `websites/{w}/custom_domain`: where the website answers, the DNS record
 * to create for the custom domain and whether `:verify` found it.
 */
export function customDomainResource(deps: CustomDomainDeps): ResourceDecl {
  const { database } = deps;
  const { dialect } = database;

  async function website(db: Db, ctx: RequestContext, websiteId: string): Promise<WebsiteCode> {
    const row = await websiteCodeInAccount(db, ctx.access!.accountId, websiteId);
    if (!row) throw new NotFound(`website ${websiteId}`);
    return row;
  }

  function present(site: WebsiteCode, row: CustomDomainRow | undefined): Record<string, unknown> {
    const platformHostname = `${site.code}.${deps.platformDomain}`;
    const domain: string | null = row?.domain ?? null;
    const resource: Record<string, unknown> = {
      name: `websites/${site.id}/custom_domain`,
      platform_hostname: platformHostname,
      status: row?.status ?? 'NOT_CONFIGURED',
    };
    if (domain) {
      resource.domain = domain;
      resource.dns_record = { type: 'CNAME', name: domain, value: platformHostname };
    }
    if (row?.status_detail) resource.status_detail = row.status_detail;
    if (row?.last_verify_time) resource.last_verify_time = new Date(Number(row.last_verify_time)).toISOString();
    if (row && Number(row.revision) > 0) {
      resource.create_time = new Date(Number(row.create_time)).toISOString();
      resource.update_time = new Date(Number(row.update_time)).toISOString();
    }
    resource.etag = row ? etagOf(row) : '0';
    return resource;
  }

  async function current(ctx: RequestContext, websiteId: string) {
    const site = await website(database.db, ctx, websiteId);
    const row = await customDomainOf(database.db, ctx.access!.accountId, websiteId);
    return { site, row, resource: present(site, row) };
  }

  return {
    kind: 'singleton',
    collection: 'custom_domain',
    singular: 'CustomDomain',
    table: 'custom_domains',
    description:
      'Where the website answers (read-only): its platform hostname `{code}.{PLATFORM_DOMAIN}`, the custom domain written through the setting ' +
      '`general.web.custom_domain`, the DNS record to create (a CNAME from the domain to the platform hostname) and `status`: ' +
      'NOT_CONFIGURED (no custom domain), PENDING_DNS (set; the record was not found yet), CONNECTED (`:verify` found the record), ' +
      'MISCONFIGURED (the domain has a CNAME to somewhere else).',
    collectionPath: 'websites/{website_id}/custom_domain',
    itemPath: 'websites/{website_id}/custom_domain',
    fields: {
      platform_hostname: { type: 'string', description: 'Host name the website always answers on: `{code}.{PLATFORM_DOMAIN}`.', behavior: ['OUTPUT_ONLY'] },
      domain: { type: 'string', description: 'The custom domain (setting `general.web.custom_domain`); absent when none.', behavior: ['OUTPUT_ONLY'] },
      status: { type: 'enum', description: 'Connection status (see the resource description).', values: DOMAIN_STATUSES, behavior: ['OUTPUT_ONLY'] },
      status_detail: { type: 'string', description: 'What the last `:verify` found, for people.', behavior: ['OUTPUT_ONLY'] },
      dns_record: {
        type: 'object',
        description: 'The record to create at the domain’s DNS provider; absent without a custom domain.',
        behavior: ['OUTPUT_ONLY'],
        schema: { properties: { type: { type: 'string', enum: ['CNAME'] }, name: { type: 'string', maxLength: 253, description: 'Host name the record is for.' }, value: { type: 'string', maxLength: 253, description: 'What it must point at.' } } },
      },
      last_verify_time: { type: 'timestamp', description: 'When `:verify` last decided the status.', behavior: ['OUTPUT_ONLY'] },
    },
    filterable: [],
    sortable: [],
    defaultOrder: '',
    methods: ['get'],
    rights: { read: read('website.settings'), write: write('website.settings') },
    virtual: {
      async get(ctx, params) {
        return (await current(ctx, params.website_id)).resource;
      },
    },
    customMethods: [
      {
        verb: 'verify',
        on: 'item',
        access: 'write',
        summary: 'Check the custom domain’s DNS record',
        description:
          'Looks up the CNAME of the custom domain over DNS (servers from `DNS_RESOLVER`, else the system’s) and moves `status`: CONNECTED when it points at ' +
          '`platform_hostname`, MISCONFIGURED when it points elsewhere, PENDING_DNS when there is none. Another website that was CONNECTED to the same domain goes back to PENDING_DNS. ' +
          'FAILED_PRECONDITION (reason `NO_CUSTOM_DOMAIN`) without a custom domain; UNAVAILABLE when DNS cannot be asked, and nothing changes. Safe to repeat; `If-Match` honoured.',
        async handle(ctx, call) {
          const before = await current(ctx, call.params.website_id);
          const ifMatch = call.ifMatch;
          if (ifMatch && !etagMatches(ifMatch, before.resource.etag as string)) throw new Aborted('the custom domain changed since the etag sent was read', before.resource);
          const domain = before.row?.domain as string | undefined;
          if (!domain) throw new FailedPrecondition('NO_CUSTOM_DOMAIN', 'the website has no custom domain; set the setting general.web.custom_domain first');
          const expected = before.resource.platform_hostname as string;
          // The network first, outside any transaction; the write below re-checks the domain.
          const found = await lookupCname(domain, { servers: deps.dnsResolver, timeoutMs: deps.dnsTimeoutMs });
          if (found.kind === 'unreachable') throw new Unavailable(`DNS could not be asked about ${domain} (${found.code}); nothing changed`, 'DNS_UNREACHABLE');
          const outcome =
            found.kind === 'absent'
              ? { status: 'PENDING_DNS', status_detail: `no CNAME record found for ${domain} (${found.code}); create ${domain} CNAME ${expected}` }
              : found.targets.includes(expected)
                ? { status: 'CONNECTED', status_detail: `${domain} CNAME ${expected}` }
                : { status: 'MISCONFIGURED', status_detail: `${domain} is a CNAME for ${found.targets.join(', ')}, not ${expected}` };
          const now = Date.now();
          const saved = await database.db.transaction().execute(async (trx) => {
            const row = await lockRow(trx, ctx.access!.accountId, call.params.website_id, now, dialect);
            // The domain changed while DNS was asked: this answer is about another name.
            if (row.domain !== domain) throw new Aborted('the custom domain changed while it was being verified', present(before.site, row));
            if (outcome.status === 'CONNECTED') await releaseDomainElsewhere(trx, domain, row.id, now);
            return saveRow(trx, row, { ...outcome, last_verify_time: now }, now);
          });
          return present(before.site, saved);
        },
      },
    ],
  };
}
