/** Grants over the permission tree, as the API answers them (pure: tested in test/admin-unit/). */
export interface Grant {
  section: string;
  access: 'READ' | 'WRITE';
}

/** Whether `grants` cover `section` at `access`: a grant covers its section and those beneath it; WRITE implies READ. */
export function holds(grants: readonly Grant[], section: string, access: 'READ' | 'WRITE'): boolean {
  // Section '' is the server's `anyMember`: reading it needs a membership only, which every caller of this has.
  if (section === '' && access === 'READ') return true;
  return grants.some((g) => (section === g.section || section.startsWith(`${g.section}.`)) && (g.access === 'WRITE' || access === 'READ'));
}
