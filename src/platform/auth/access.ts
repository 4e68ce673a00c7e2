import { VersionedCache } from '../cache.js';
import type { CacheInvalidation } from '../cache-invalidation.js';
import type { Database } from '../db/database.js';
import { NotFound, PermissionDenied } from '../errors.js';
import type { AccessScope, Caller } from './context.js';
import { BUILT_IN_ROLE_GRANTS, effectiveGrants, reaches, type BuiltInRole, type Grant, type Right } from './rights.js';

/** A globally addressable resource a path can start from (`accounts/{account_id}`, `websites/{website_id}`). */
export interface AccessRoot {
  /** Path parameter naming it, e.g. `website_id`. */
  param: string;
  table: 'accounts' | 'projects' | 'websites';
  /** Whether the root is a website (website-scoped resources carry `website_id`). */
  isWebsite: boolean;
}

// Bounded by bytes: an entry is a key and an id (roots) or a scope with its grants (memberships).
const ROOT_CACHE = { max: 100_000, maxBytes: 8 * 2 ** 20 };
const MEMBERSHIP_CACHE = { max: 100_000, maxBytes: 16 * 2 ** 20 };

/** A membership as `membership_access` holds it (the membership joined with its account role). */
export interface MembershipRow {
  account_id: string;
  user_id: string;
  role: string;
  account_role_id: string | null;
  grants: unknown;
  website_ids: unknown;
  role_grants: unknown;
}

/** What a membership gives wherever it reaches (a request's scope but the website it names). */
export type MembershipScope = Required<Omit<AccessScope, 'websiteId'>>;

export interface AccessService {
  /**
   * The account a request reaches through `root`/`id`, if the caller is a member holding `right`
   * there. Anything the caller cannot see (not a member, a website outside the membership's
   * websites) is NOT_FOUND; a member whose grants do not reach `right` gets PERMISSION_DENIED.
   */
  authorize(caller: Caller, root: AccessRoot, id: string, right: Right, now: number): Promise<AccessScope>;
  /**
   * `authorize` when what it needs is already in memory under the current versions: the scope, or
   * the refusal thrown, without a promise. Undefined when a read is needed: then call `authorize`.
   */
  known(caller: Caller, root: AccessRoot, id: string, right: Right): AccessScope | undefined;
  forgetRoot(table: string, id: string): void;
}

/** The role resource name of a membership row. */
export function roleNameOf(row: { account_id: string; role: string; account_role_id: string | null }): string {
  return row.role === 'account_role' ? `accounts/${row.account_id}/account_roles/${row.account_role_id}` : `roles/${row.role}`;
}

/** What a membership row (with its account role's grants) holds: the access scope of a request. */
export function scopeOf(database: Database, row: MembershipRow): MembershipScope {
  const read = <T>(v: unknown, fallback: T): T => (v === null || v === undefined ? fallback : database.dialect.readJson<T>(v));
  const roleGrants: readonly Grant[] =
    row.role === 'account_role' ? read<Grant[]>(row.role_grants, []) : (BUILT_IN_ROLE_GRANTS[row.role as BuiltInRole] ?? []);
  return {
    accountId: row.account_id,
    role: roleNameOf(row),
    administrator: row.role === 'administrator',
    grants: effectiveGrants(roleGrants, read<Grant[]>(row.grants, [])),
    websiteIds: read<string[]>(row.website_ids, []),
  };
}

/**
 * Access checks: the owner of a project or website and the caller's membership there (with its
 * account role's grants, as the scope they give) are cached per process, each entry under the version
 * of its topic (src/platform/cache-invalidation.ts): `roots` (a project or website created or deleted)
 * and `auth` (a membership added, changed or removed, an account role changed or removed), raised by
 * triggers on those tables. A removed member or a changed role takes effect on the next request, in
 * every process; a freed project id is found under its new owner at once. Misses are cached too (a
 * probe of random ids or of an account one is not a member of costs no read).
 */
export function createAccessService(database: Database, invalidation: CacheInvalidation): AccessService {
  const { db } = database;
  // A root that does not exist keeps its NOT_FOUND, reused (body rendered once) while the miss is cached.
  const roots = new VersionedCache<string, string | NotFound>(ROOT_CACHE);
  const memberships = new VersionedCache<string, MembershipScope | null>(MEMBERSHIP_CACHE);
  const rootsVersion = () => invalidation.version('roots');
  const authVersion = () => invalidation.version('auth');
  let membership: ReturnType<Database['pointReader']> | undefined;

  /** The account owning `root`/`id`, or the NOT_FOUND of an id no row has. */
  async function accountOf(root: AccessRoot, id: string): Promise<string | NotFound> {
    if (root.table === 'accounts') return id;
    return roots.load(`${root.table}/${id}`, rootsVersion, async () => {
      const row = await db.selectFrom(root.table).select('account_id').where('id', '=', id).executeTakeFirst();
      return row ? (row.account_id as string) : notFound(root, id);
    });
  }

  // One refusal per section and access (the permission tree's, a fixed set), reused: its body is
  // rendered once (renderErrorJson).
  const refusals = new Map<string, PermissionDenied>();
  const notGranted = (right: Right) => {
    const message = `your role does not hold ${right.access} on section ${right.section}`;
    let refusal = refusals.get(message);
    if (!refusal) refusals.set(message, (refusal = new PermissionDenied(message, 'SECTION_NOT_GRANTED')));
    return refusal;
  };
  const notFound = (root: AccessRoot, id: string) => new NotFound(`${root.table.replace(/s$/, '')} ${id}`);

  /** What a membership (null: none) gives on `root`/`id` for `right`: the scope, or the refusal thrown. */
  function decide(scope: MembershipScope | null, root: AccessRoot, id: string, right: Right): AccessScope {
    if (!scope) throw notFound(root, id);
    // A membership limited to some websites does not see the others at all.
    if (root.isWebsite && scope.websiteIds.length > 0 && !scope.websiteIds.includes(id)) throw notFound(root, id);
    // `anyMember` (section '') asks for the membership only.
    if (right.section !== '' && !reaches(scope.grants, right)) throw notGranted(right);
    return { ...scope, websiteId: root.isWebsite ? id : undefined };
  }

  return {
    async authorize(caller, root, id, right) {
      const accountId = await accountOf(root, id);
      if (typeof accountId !== 'string') throw accountId;
      const scope = await memberships.load(`${accountId} ${caller.userId}`, authVersion, async () => {
        // Made on first use: the view does not exist before migrations ran.
        membership ??= database.pointReader('membership_access', ['account_id', 'user_id']);
        const row = (await membership([accountId, caller.userId])) as MembershipRow | undefined;
        return row ? scopeOf(database, row) : null;
      });
      return decide(scope, root, id, right);
    },
    known(caller, root, id, right) {
      const accountId = root.table === 'accounts' ? id : roots.peek(`${root.table}/${id}`, rootsVersion);
      if (accountId === undefined) return undefined;
      if (typeof accountId !== 'string') throw accountId;
      const scope = memberships.peek(`${accountId} ${caller.userId}`, authVersion);
      return scope === undefined ? undefined : decide(scope, root, id, right);
    },
    forgetRoot(table, id) {
      // The trigger raises the version for every process; this drops the entry at once here too.
      roots.delete(`${table}/${id}`);
    },
  };
}
