/**
 * Members for access tests. `addMember` makes `user` a member of `accountId` with the given role,
 * grants and websites by writing the membership row directly (what an accepted invitation writes;
 * the invitation flow itself is tested end to end in test/api/access-invitations.test.ts).
 */
import type { TestApp, TestUser } from './app.js';

export interface MemberTerms {
  /** `administrator`, `editor`, `restricted`, or `{ accountRole: id }`. */
  role: 'administrator' | 'editor' | 'restricted' | { accountRole: string };
  grants?: Array<{ section: string; access: 'READ' | 'WRITE' }>;
  websiteIds?: string[];
}

export async function addMember(t: TestApp, user: TestUser, accountId: string, terms: MemberTerms): Promise<void> {
  const { db, dialect } = t.platform.deps.database;
  const now = Date.now();
  const role = typeof terms.role === 'string' ? { role: terms.role, account_role_id: null } : { role: 'account_role', account_role_id: terms.role.accountRole };
  await db
    .insertInto('memberships')
    .values({
      account_id: accountId,
      id: user.userId,
      user_id: user.userId,
      ...role,
      grants: dialect.json(terms.grants ?? []),
      website_ids: dialect.json(terms.websiteIds ?? []),
      revision: 1,
      create_time: now,
      update_time: now,
    })
    .execute();
}
