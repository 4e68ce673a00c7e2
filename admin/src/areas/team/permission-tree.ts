/**
 * The role editor's logic over the permission tree (pure: tested in test/admin-unit/team.test.ts).
 * A grant covers its section and everything beneath it; WRITE implies READ (as the API's
 * `permissions` catalogue says). Children follow their parent: granting a section drops the grants
 * beneath it that it now covers, so what is saved is the smallest list saying the same thing.
 */
export type Access = 'READ' | 'WRITE';
export interface Grant {
  section: string;
  access: Access;
}

export interface PermissionEntry {
  id: string;
  display_name?: string;
  description?: string;
  parent?: string;
}

export interface SectionNode {
  section: string;
  label: string;
  description?: string;
  depth: number;
  children: SectionNode[];
}

const within = (section: string, ancestor: string) => section === ancestor || section.startsWith(`${ancestor}.`);
const covers = (g: Grant, wanted: Grant) => within(wanted.section, g.section) && (g.access === 'WRITE' || wanted.access === 'READ');

/** The catalogue as a tree, in catalogue order (parents before children). */
export function buildTree(entries: readonly PermissionEntry[]): SectionNode[] {
  const nodes = new Map<string, SectionNode>();
  const roots: SectionNode[] = [];
  const sorted = [...entries].sort((a, b) => a.id.split('.').length - b.id.split('.').length);
  for (const e of sorted) {
    const parentId = e.parent || (e.id.includes('.') ? e.id.slice(0, e.id.lastIndexOf('.')) : '');
    const parent = parentId ? nodes.get(parentId) : undefined;
    const node: SectionNode = { section: e.id, label: e.display_name || e.id, description: e.description, depth: parent ? parent.depth + 1 : 0, children: [] };
    nodes.set(e.id, node);
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

/** Every node, depth first (the order the editor lists them in). */
export function flatten(tree: readonly SectionNode[]): SectionNode[] {
  return tree.flatMap((n) => [n, ...flatten(n.children)]);
}

/** The grants without any another one covers, deduplicated, sorted by section. */
export function normalize(grants: readonly Grant[]): Grant[] {
  const unique = [...new Map(grants.map((g) => [`${g.section} ${g.access}`, g])).values()];
  return unique
    .filter((g) => !unique.some((other) => other !== g && covers(other, g) && !(other.section === g.section && other.access === g.access)))
    .sort((a, b) => a.section.localeCompare(b.section));
}

export interface Coverage {
  /** What the grants give on the section (its own grant or an ancestor's), if anything. */
  access?: Access;
  /** The grant naming this section itself. */
  own?: Access;
  /** The ancestor whose grant gives `access` when it is not the section's own. */
  inheritedFrom?: string;
}

/** What `grants` give on `section`, and where it comes from. */
export function coverage(grants: readonly Grant[], section: string): Coverage {
  const own = grants.find((g) => g.section === section && g.access === 'WRITE')?.access ?? grants.find((g) => g.section === section)?.access;
  const ancestors = grants.filter((g) => g.section !== section && within(section, g.section));
  const inherited = ancestors.find((g) => g.access === 'WRITE') ?? ancestors.find((g) => g.access === 'READ');
  const access = own === 'WRITE' || inherited?.access === 'WRITE' ? 'WRITE' : own || inherited?.access;
  const fromAncestor = inherited && (!own || (inherited.access === 'WRITE' && own === 'READ'));
  return { access, own, inheritedFrom: fromAncestor ? inherited.section : undefined };
}

/** Sets the section's own grant (`undefined` removes it); grants beneath it that it covers go (children follow the parent). */
export function setGrant(grants: readonly Grant[], section: string, access: Access | undefined): Grant[] {
  const rest = grants.filter((g) => g.section !== section);
  return normalize(access ? [...rest, { section, access }] : rest);
}

/** A checkbox of the editor changed: READ or WRITE on `section` checked or cleared. */
export function toggle(grants: readonly Grant[], section: string, which: Access, checked: boolean): Grant[] {
  const { own } = coverage(grants, section);
  if (which === 'WRITE') return setGrant(grants, section, checked ? 'WRITE' : own ? 'READ' : undefined);
  // Clearing READ clears the section's own grant entirely (WRITE implies READ).
  return setGrant(grants, section, checked ? (own === 'WRITE' ? 'WRITE' : 'READ') : undefined);
}

/** The grants of `wanted` that `held` does not cover (the API refuses these: GRANT_EXCEEDS_OWN). */
export function exceeding(held: readonly Grant[], wanted: readonly Grant[]): Grant[] {
  return wanted.filter((w) => !held.some((h) => covers(h, w)));
}

/**
 * What the grants cover, in words, section by section of the tree: `{label, access, sections}` per
 * grant, `sections` naming the labels beneath it that follow (shown before saving).
 */
export function describe(grants: readonly Grant[], tree: readonly SectionNode[]): { section: string; label: string; access: Access; covers: string[] }[] {
  const all = flatten(tree);
  return normalize(grants).map((g) => ({
    section: g.section,
    label: all.find((n) => n.section === g.section)?.label ?? g.section,
    access: g.access,
    covers: all.filter((n) => n.section !== g.section && within(n.section, g.section)).map((n) => n.label),
  }));
}
