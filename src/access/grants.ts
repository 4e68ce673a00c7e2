import { InvalidArgument, PermissionDenied, type FieldViolation } from '../platform/errors.js';
import type { AccessScope } from '../platform/auth/context.js';
import { isSection } from '../platform/auth/permissions.js';
import { BUILT_IN_ROLES, BUILT_IN_ROLE_GRANTS, holdsAll, type BuiltInRole, type Grant } from '../platform/auth/rights.js';

/** At most this many grants in one list (an account role, a membership, an invitation). */
export const MAX_GRANTS = 50;

/** A grant as it travels: a section of the permission tree and READ or WRITE. */
export const GRANT_SCHEMA = {
  $id: 'Grant',
  type: 'object',
  description: 'Access to a section of the permission tree (`permissions`) and everything beneath it; WRITE implies READ.',
  additionalProperties: false,
  required: ['section', 'access'],
  properties: {
    section: { type: 'string', maxLength: 100, description: 'A section of the permission tree, e.g. `website.content`.' },
    access: { type: 'string', enum: ['READ', 'WRITE'], description: 'READ, or WRITE (which implies READ).' },
  },
};

/** The field declaration of a list of grants. */
export const grantsField = (description: string, extra: { behavior?: readonly ('OUTPUT_ONLY' | 'REQUIRED')[]; default?: unknown } = {}) => ({
  type: 'json' as const,
  description,
  schema: { type: 'array', maxItems: MAX_GRANTS, items: GRANT_SCHEMA },
  ...extra,
});

/** INVALID_ARGUMENT naming `field[i].section` for every grant whose section is not in the tree. */
export function checkGrants(field: string, grants: readonly Grant[] | undefined): Grant[] {
  const list = grants ?? [];
  const violations: FieldViolation[] = [];
  list.forEach((g, i) => {
    if (!isSection(g.section)) violations.push({ field: `${field}[${i}].section`, description: `${JSON.stringify(g.section)} is not a section of the permission tree (see permissions)` });
  });
  if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
  // Stored without repeats, in section order.
  const seen = new Set<string>();
  return list
    .filter((g) => !seen.has(`${g.section}/${g.access}`) && seen.add(`${g.section}/${g.access}`))
    .map((g) => ({ section: g.section, access: g.access }))
    .sort((a, b) => a.section.localeCompare(b.section) || a.access.localeCompare(b.access));
}

/** A role as named on the wire: built-in (`roles/editor`) or an account role of `accountId`. */
export type RoleRef = { kind: 'built_in'; role: BuiltInRole } | { kind: 'account_role'; id: string };

/** Parses a role resource name; INVALID_ARGUMENT on `field` when it names no role of this account. */
export function parseRole(field: string, name: string, accountId: string): RoleRef {
  const builtIn = /^roles\/([a-z_]+)$/.exec(name);
  if (builtIn && (BUILT_IN_ROLES as readonly string[]).includes(builtIn[1])) return { kind: 'built_in', role: builtIn[1] as BuiltInRole };
  const own = /^accounts\/([^/]+)\/account_roles\/([^/]+)$/.exec(name);
  if (own && own[1] === accountId) return { kind: 'account_role', id: own[2] };
  throw InvalidArgument.field(field, `must be roles/administrator, roles/editor, roles/restricted or accounts/${accountId}/account_roles/{id}`);
}

/** Stored columns of a role reference. */
export function roleColumns(ref: RoleRef): { role: string; account_role_id: string | null } {
  return ref.kind === 'built_in' ? { role: ref.role, account_role_id: null } : { role: 'account_role', account_role_id: ref.id };
}

/** The role resource name of stored columns. */
export function roleName(accountId: string, role: string, accountRoleId: string | null): string {
  return role === 'account_role' ? `accounts/${accountId}/account_roles/${accountRoleId}` : `roles/${role}`;
}

/**
 * Escalation guard: nobody grants more than they hold. Only administrators make administrators; every
 * other grant the new membership (or invitation) would hold must be covered by the caller's grants,
 * and a caller limited to some websites may only hand out memberships limited to those websites.
 */
export function checkNotMoreThanHeld(
  caller: AccessScope,
  target: { role: RoleRef; roleGrants: readonly Grant[]; grants: readonly Grant[]; websiteIds: readonly string[] },
): void {
  if (caller.administrator) return;
  if (target.role.kind === 'built_in' && target.role.role === 'administrator') {
    throw new PermissionDenied('only administrators make administrators', 'ADMINISTRATOR_REQUIRED', [{ field: 'role', description: 'only administrators may assign roles/administrator' }]);
  }
  const held = caller.grants ?? [];
  if (!holdsAll(held, target.roleGrants)) {
    throw new PermissionDenied('the role holds more than you do', 'GRANT_EXCEEDS_OWN', [{ field: 'role', description: 'holds grants you do not hold' }]);
  }
  const beyond = target.grants.findIndex((g) => !holdsAll(held, [g]));
  if (beyond >= 0) {
    throw new PermissionDenied('you cannot grant more than you hold', 'GRANT_EXCEEDS_OWN', [{ field: `grants[${beyond}]`, description: 'is not covered by your own grants' }]);
  }
  const limited = caller.websiteIds ?? [];
  if (limited.length && (target.websiteIds.length === 0 || target.websiteIds.some((w) => !limited.includes(w)))) {
    throw new PermissionDenied('you cannot grant websites you are not limited to', 'GRANT_EXCEEDS_OWN', [{ field: 'website_ids', description: `must be a non-empty subset of your own websites` }]);
  }
}

/** Grants of a built-in role. */
export const builtInGrants = (role: BuiltInRole): readonly Grant[] => BUILT_IN_ROLE_GRANTS[role];
