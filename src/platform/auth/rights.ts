/**
 * Rights and grants over the permission tree (`permissions.ts`). A right names a section (dotted
 * path) and an access level; a grant covers its section and everything beneath it, WRITE implies
 * READ. What a member holds is the grants of its role (built-in or an account role) plus the grants
 * of the membership itself (`effectiveGrants`).
 */
import { isSection } from './permissions.js';

export type Access = 'READ' | 'WRITE';
export interface Grant {
  section: string;
  access: Access;
}
/** What a route needs: `section` at `access`, or any of `alternatives` (`either`). */
export interface Right extends Grant {
  alternatives?: readonly Grant[];
}

/** Built-in roles (SPEC 5.5), present in every account: `roles/{id}`. */
export type BuiltInRole = 'administrator' | 'editor' | 'restricted';
export const BUILT_IN_ROLES: readonly BuiltInRole[] = ['administrator', 'editor', 'restricted'];

/** The grants each built-in role holds. `restricted` holds nothing: only its membership's own grants. */
export const BUILT_IN_ROLE_GRANTS: Record<BuiltInRole, readonly Grant[]> = {
  administrator: [
    { section: 'account', access: 'WRITE' },
    { section: 'ai', access: 'WRITE' },
    { section: 'website', access: 'WRITE' },
  ],
  editor: [
    { section: 'account', access: 'READ' },
    { section: 'ai', access: 'READ' },
    { section: 'website', access: 'WRITE' },
  ],
  restricted: [],
};

/** Whether `grant` covers `right` (same section or beneath it; WRITE implies READ). */
export function covers(grant: Grant, right: Right): boolean {
  const inSection = right.section === grant.section || right.section.startsWith(grant.section + '.');
  return inSection && (grant.access === 'WRITE' || right.access === 'READ');
}

/** Whether any of `grants` covers `right`. */
export function holds(grants: readonly Grant[], right: Right): boolean {
  return grants.some((g) => covers(g, right));
}

/** Whether `grants` reach what a route needs: its right or one of its alternatives. */
export function reaches(grants: readonly Grant[], right: Right): boolean {
  return holds(grants, right) || (right.alternatives ?? []).some((alternative) => holds(grants, alternative));
}

/** Whether `held` covers every grant of `wanted` (nobody grants more than they hold). */
export function holdsAll(held: readonly Grant[], wanted: readonly Grant[]): boolean {
  return wanted.every((w) => holds(held, w));
}

/** The union of grant lists, without grants another one already covers; sorted by section. */
export function effectiveGrants(...lists: readonly (readonly Grant[])[]): Grant[] {
  const all = lists.flat();
  const kept = all.filter((g, i) => !all.some((other, j) => j !== i && covers(other, g) && (!covers(g, other) || j < i)));
  return kept.sort((a, b) => a.section.localeCompare(b.section));
}

function checked(section: string, access: Access): Right {
  // '' is the platform catalogues' (no tenant, no section); everything else must be in the tree.
  if (section !== '' && !isSection(section)) throw new Error(`right on section "${section}", which is not in the permission tree (platform/auth/permissions.ts)`);
  return { section, access };
}

/**
 * The right of routes every member may call whatever they hold (`members:leave`). Only checked for
 * membership; `''` is no section of the tree.
 */
export const anyMember: Right = { section: '', access: 'READ' };

/** Shorthands used in declarations; a section outside the permission tree fails at startup. */
export const read = (section: string): Right => checked(section, 'READ');
export const write = (section: string): Right => checked(section, 'WRITE');
/** A right any one of `rights` satisfies (the first is the one named first in the route's description). */
export const either = (first: Right, ...others: Right[]): Right => ({ ...first, alternatives: others.map(({ section, access }) => ({ section, access })) });
