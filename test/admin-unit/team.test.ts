// The role editor's permission-tree logic and the access guards' sentences (pure, no browser).
import { describe, expect, it } from 'vitest';
import { ApiError } from '@siteplatform/sdk';
import { buildTree, coverage, describe as describeGrants, exceeding, flatten, normalize, setGrant, toggle, type Grant } from '../../admin/src/areas/team/permission-tree.js';
import { guardOf } from '../../admin/src/areas/team/guards.js';

const CATALOGUE = [
  { id: 'website.content', display_name: 'Content', parent: 'website' },
  { id: 'account', display_name: 'Account' },
  { id: 'account.members', display_name: 'Members', parent: 'account' },
  { id: 'website', display_name: 'Websites' },
  { id: 'website.customers', display_name: 'Customers', parent: 'website' },
];
const tree = buildTree(CATALOGUE);

describe('permission tree', () => {
  it('builds the tree parents first, children beneath, in depth-first order', () => {
    expect(flatten(tree).map((n) => `${'-'.repeat(n.depth)}${n.section}`)).toEqual(['account', '-account.members', 'website', '-website.content', '-website.customers']);
  });

  it('children follow the parent: granting a section drops the grants beneath it that it covers', () => {
    let grants: Grant[] = [{ section: 'website.content', access: 'READ' }, { section: 'website.customers', access: 'WRITE' }];
    grants = setGrant(grants, 'website', 'READ');
    // READ on website covers content READ, not customers WRITE.
    expect(grants).toEqual([{ section: 'website', access: 'READ' }, { section: 'website.customers', access: 'WRITE' }]);
    grants = setGrant(grants, 'website', 'WRITE');
    expect(grants).toEqual([{ section: 'website', access: 'WRITE' }]);
  });

  it('a child shows what its parent grants, and where it comes from', () => {
    const grants: Grant[] = [{ section: 'website', access: 'READ' }, { section: 'website.customers', access: 'WRITE' }];
    expect(coverage(grants, 'website.content')).toEqual({ access: 'READ', own: undefined, inheritedFrom: 'website' });
    expect(coverage(grants, 'website.customers')).toEqual({ access: 'WRITE', own: 'WRITE', inheritedFrom: undefined });
    expect(coverage(grants, 'account.members')).toEqual({ access: undefined, own: undefined, inheritedFrom: undefined });
    expect(coverage([{ section: 'website', access: 'WRITE' }], 'website.content')).toEqual({ access: 'WRITE', own: undefined, inheritedFrom: 'website' });
  });

  it('checking WRITE implies READ; clearing WRITE keeps READ; clearing READ clears the grant', () => {
    let grants = toggle([], 'website.content', 'WRITE', true);
    expect(grants).toEqual([{ section: 'website.content', access: 'WRITE' }]);
    grants = toggle(grants, 'website.content', 'WRITE', false);
    expect(grants).toEqual([{ section: 'website.content', access: 'READ' }]);
    grants = toggle(grants, 'website.content', 'READ', false);
    expect(grants).toEqual([]);
  });

  it('normalizes duplicates and covered grants away', () => {
    expect(normalize([{ section: 'website', access: 'WRITE' }, { section: 'website', access: 'READ' }, { section: 'website.content', access: 'WRITE' }, { section: 'website', access: 'WRITE' }])).toEqual([{ section: 'website', access: 'WRITE' }]);
  });

  it('says what a grant covers before saving, and what exceeds the editor’s own grants', () => {
    expect(describeGrants([{ section: 'website', access: 'READ' }], tree)).toEqual([{ section: 'website', label: 'Websites', access: 'READ', covers: ['Content', 'Customers'] }]);
    const held: Grant[] = [{ section: 'website', access: 'WRITE' }, { section: 'account', access: 'READ' }];
    expect(exceeding(held, [{ section: 'website.customers', access: 'WRITE' }, { section: 'account.members', access: 'WRITE' }])).toEqual([{ section: 'account.members', access: 'WRITE' }]);
  });
});

const refused = (status: string, reason?: string, field?: string) =>
  new ApiError({
    code: status === 'PERMISSION_DENIED' ? 403 : 400,
    status,
    message: 'refused',
    details: [...(reason ? [{ type: 'PRECONDITION_FAILURE', reason }] : []), ...(field ? [{ type: 'FIELD_VIOLATION', field, description: 'x' }] : [])],
  } as never);

describe('access guards in place', () => {
  it('maps LAST_ADMINISTRATOR to the role control, or to leaving', () => {
    expect(guardOf(refused('FAILED_PRECONDITION', 'LAST_ADMINISTRATOR'), 'member')?.field).toBe('role');
    expect(guardOf(refused('FAILED_PRECONDITION', 'LAST_ADMINISTRATOR'), 'leave')?.message).toMatch(/last administrator.*cannot leave/);
  });

  it('maps GRANT_EXCEEDS_OWN to the control its field names', () => {
    expect(guardOf(refused('PERMISSION_DENIED', 'GRANT_EXCEEDS_OWN', 'website_ids'), 'member')?.field).toBe('website_ids');
    expect(guardOf(refused('PERMISSION_DENIED', 'GRANT_EXCEEDS_OWN', 'grants[0]'), 'role')).toEqual({ field: 'grants', message: expect.stringMatching(/more than you hold/) });
    expect(guardOf(refused('PERMISSION_DENIED', 'GRANT_EXCEEDS_OWN', 'role'), 'invite')?.field).toBe('role');
  });

  it('maps a duplicate invitation to the address field, and leaves other errors to the generic message', () => {
    expect(guardOf(refused('ALREADY_EXISTS', undefined, 'email'), 'invite')?.field).toBe('email');
    expect(guardOf(refused('INTERNAL'), 'invite')).toBeUndefined();
    expect(guardOf(new Error('x'), 'invite')).toBeUndefined();
  });
});
