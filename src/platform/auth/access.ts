import type { Kysely } from 'kysely';
import { TtlCache } from '../cache.js';
import { NotFound, PermissionDenied } from '../errors.js';
import type { AccessScope, Caller } from './context.js';
import { roleHolds, type Right, type Role } from './rights.js';

/** A globally addressable resource a path can start from (`accounts/{account_id}`, `websites/{website_id}`). */
export interface AccessRoot {
  /** Path parameter naming it, e.g. `website_id`. */
  param: string;
  table: string;
  /** Whether the root is a website (website-scoped resources carry `website_id`). */
  isWebsite: boolean;
}

// Which account owns a project or website never changes; deletes evict in this process.
const ROOT_TTL_MS = 60_000;
// A removed membership stops working in other processes within this long (at once in this one).
const MEMBERSHIP_TTL_MS = 2_000;

export interface AccessService {
  /**
   * The account a request reaches through `root`/`id`, if the caller is a member holding `right`.
   * Anything the caller cannot see is NOT_FOUND, never PERMISSION_DENIED (no probing of ids).
   */
  authorize(caller: Caller, root: AccessRoot, id: string, right: Right, now: number): Promise<AccessScope>;
  /** The caller's role in an account, or undefined. */
  roleIn(userId: string, accountId: string, now: number): Promise<Role | undefined>;
  forgetRoot(table: string, id: string): void;
  forgetMembership(accountId: string, userId: string): void;
}

export function createAccessService(db: Kysely<any>): AccessService {
  const roots = new TtlCache<string, string | null>(100_000, ROOT_TTL_MS);
  const memberships = new TtlCache<string, Role | null>(100_000, MEMBERSHIP_TTL_MS);

  async function accountOf(root: AccessRoot, id: string, now: number): Promise<string | undefined> {
    if (root.table === 'accounts') return id;
    const key = `${root.table}/${id}`;
    const cached = roots.get(key, now);
    if (cached !== undefined) return cached ?? undefined;
    const row = await db.selectFrom(root.table).select('account_id').where('id', '=', id).executeTakeFirst();
    const accountId = row ? (row.account_id as string) : null;
    // Misses are cached briefly too, so probing random ids stays cheap.
    roots.set(key, accountId, now, accountId ? ROOT_TTL_MS : 1_000);
    return accountId ?? undefined;
  }

  async function roleIn(userId: string, accountId: string, now: number): Promise<Role | undefined> {
    const key = `${accountId}/${userId}`;
    const cached = memberships.get(key, now);
    if (cached !== undefined) return cached ?? undefined;
    const row = await db
      .selectFrom('memberships')
      .select('role')
      .where('account_id', '=', accountId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    const role = (row?.role as Role | undefined) ?? null;
    memberships.set(key, role, now);
    return role ?? undefined;
  }

  return {
    roleIn,
    async authorize(caller, root, id, right, now) {
      const what = `${root.table.replace(/s$/, '')} ${id}`;
      const accountId = await accountOf(root, id, now);
      if (!accountId) throw new NotFound(what);
      const role = await roleIn(caller.userId, accountId, now);
      if (!role) throw new NotFound(what);
      if (!roleHolds(role, right)) {
        throw new PermissionDenied(`the ${role} role does not hold ${right.access} on ${right.section || 'the account'}`);
      }
      return { accountId, role, websiteId: root.isWebsite ? id : undefined };
    },
    forgetRoot(table, id) {
      roots.delete(`${table}/${id}`);
    },
    forgetMembership(accountId, userId) {
      memberships.delete(`${accountId}/${userId}`);
    },
  };
}
