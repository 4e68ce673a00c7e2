/**
 * The permission tree, as far as the foundation needs it. A right names a section (dotted path)
 * and an access level; a grant covers its section and everything beneath it, WRITE implies READ.
 * The access area (roles, custom grant sets) will replace ROLE_GRANTS with stored grants.
 */
export type Access = 'READ' | 'WRITE';
export interface Right {
  section: string;
  access: Access;
}
export type Role = 'administrator' | 'editor';
export const ROLES: readonly Role[] = ['administrator', 'editor'];

type Grant = Right;

/** Sections used so far: account (settings, projects, websites), website (everything inside a website). */
const ROLE_GRANTS: Record<Role, readonly Grant[]> = {
  administrator: [{ section: '', access: 'WRITE' }],
  editor: [
    { section: '', access: 'READ' },
    { section: 'website', access: 'WRITE' },
  ],
};

function covers(grant: Grant, right: Right): boolean {
  const inSection = grant.section === '' || right.section === grant.section || right.section.startsWith(grant.section + '.');
  return inSection && (grant.access === 'WRITE' || right.access === 'READ');
}

/** Whether `role` holds `right`. */
export function roleHolds(role: Role, right: Right): boolean {
  return ROLE_GRANTS[role].some((g) => covers(g, right));
}

/** Shorthands used in declarations. */
export const read = (section: string): Right => ({ section, access: 'READ' });
export const write = (section: string): Right => ({ section, access: 'WRITE' });
