/**
 * customers (SPEC 2.15, 4.2, 4.6): email, password, tags, groups, attributes, is_active, the
 * session store, filters and order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectError, expectInvalid, expectNoBody, expectShape, expectStatus, list, walk } from '../support/fixtures.js';
import { as, customerWorld, unchanged, type CustomerWorld } from '../support/customers.js';
import { createCustomerSessions, type CustomerSessions } from '../../src/customers/customer-sessions.service.js';

let t: TestApp;
let w: CustomerWorld;
let api: ReturnType<typeof as>;
let url: string;
let sessions: CustomerSessions;

beforeAll(async () => {
  t = await startTestApp();
  w = await customerWorld(t);
  api = as(t, w.alice);
  url = `${w.site}/customers`;
  sessions = createCustomerSessions({ db: t.platform.deps.database.db });
});
afterAll(() => t?.close());

let n = 0;
const email = () => `person${++n}@example.com`;
const customer = (body: Record<string, unknown> = {}) => api.create(url, { email: email(), password: 'secret-123', ...body });
const refusedUnchanged = (write: () => Promise<unknown>) => unchanged(t, w.alice, url, 'customers', write);
const attributesUrl = () => `${w.site}/customer_attributes`;
const stored = (id: string) => t.platform.deps.database.db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('email', () => {
  it('is stored trimmed and lowercase; required', async () => {
    const c = await api.create(url, { email: '  Ada.Lovelace@Example.COM ', password: 'secret-123' });
    await expectShape(t, 'CreateCustomer', 201, c);
    expect(c.email).toBe('ada.lovelace@example.com');
    expect(c).toMatchObject({ is_active: true, tags: [], manual_group_ids: [], group_ids: [] });
    expect(c.attributes).toBeUndefined();
    expect(c.name).toBe(`websites/${w.alice.websiteId}/customers/${c.id}`);
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { password: 'secret-123' }), 'email');
      expectInvalid(await api.post(url, { email: 'not-an-address', password: 'secret-123' }), 'email');
      expectInvalid(await api.post(url, { email: '', password: 'secret-123' }), 'email');
      expectInvalid(await api.post(url, { email: `${'x'.repeat(320)}@example.com`, password: 'secret-123' }), 'email');
      expectInvalid(await api.post(url, { email: ['a@b.c'], password: 'secret-123' }), 'email');
    });
  });

  it('is unique on the website (ALREADY_EXISTS, whatever the case); the same address on another website is another customer', async () => {
    await customer({ email: 'twin@example.com' });
    await refusedUnchanged(async () => {
      expectError(await api.post(url, { email: 'TWIN@example.com ', password: 'secret-123' }), 409, 'ALREADY_EXISTS');
    });
    const other = await as(t, w.bob).create(`${w.otherSite}/customers`, { email: 'twin@example.com', password: 'secret-123' });
    expect(other.email).toBe('twin@example.com');
  });

  it('is fixed after create: a changed address is refused, the same one accepted', async () => {
    const c = await customer();
    expectInvalid(await api.patch(`${url}/${c.id}`, { email: 'other@example.com' }), 'email');
    expect(expectStatus(await api.get(`${url}/${c.id}`), 200)).toEqual(c);
    expectStatus(await api.patch(`${url}/${c.id}`, { email: ` ${c.email.toUpperCase()} `, display_name: 'Same' }), 200);
  });

  it('Delete frees the address', async () => {
    const c = await customer({ email: 'reuse@example.com' });
    expectNoBody(await api.del(`${url}/${c.id}`), 204);
    expectError(await api.get(`${url}/${c.id}`), 404, 'NOT_FOUND');
    expectStatus(await api.post(url, { email: 'reuse@example.com', password: 'secret-123' }), 201);
  });
});

describe('password', () => {
  it('is required, at least 8 characters with a letter and a digit', async () => {
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { email: email() }), 'password');
      for (const bad of ['short1a', 'lettersonly', '1234567890', '', 12345678, 'x1'.repeat(200)]) {
        expectInvalid(await api.post(url, { email: email(), password: bad }), 'password');
      }
    });
  });

  it('is write-only and stored as an argon2id hash', async () => {
    const c = await customer({ password: 'secret-123' });
    expect(c.password).toBeUndefined();
    expect(expectStatus(await api.get(`${url}/${c.id}`), 200).password).toBeUndefined();
    const row = await stored(c.id);
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.password_hash).not.toContain('secret-123');
    const changed = expectStatus(await api.patch(`${url}/${c.id}`, { password: 'another-456' }), 200);
    expect(changed.password).toBeUndefined();
    expect((await stored(c.id)).password_hash).not.toBe(row.password_hash);
    expectInvalid(await api.patch(`${url}/${c.id}`, { password: 'weak' }), 'password');
    expectInvalid(await api.patch(`${url}/${c.id}?update_mask=password`, {}), 'password');
  });
});

describe('sessions', () => {
  it('a password change signs the customer out of every session', async () => {
    const c = await customer();
    const s1 = await sessions.create(w.alice.websiteId, c.id, Date.now());
    const s2 = await sessions.create(w.alice.websiteId, c.id, Date.now());
    const other = await customer();
    const s3 = await sessions.create(w.alice.websiteId, other.id, Date.now());
    expect((await sessions.renew(s1.token, Date.now())).customerId).toBe(c.id);
    expectStatus(await api.patch(`${url}/${c.id}`, { display_name: 'No sign-out' }), 200);
    await sessions.renew(s1.token, Date.now());
    expectStatus(await api.patch(`${url}/${c.id}`, { password: 'brand-new-1' }), 200);
    await expect(sessions.renew(s1.token, Date.now())).rejects.toMatchObject({ status: 'UNAUTHENTICATED' });
    await expect(sessions.renew(s2.token, Date.now())).rejects.toMatchObject({ status: 'UNAUTHENTICATED' });
    expect((await sessions.renew(s3.token, Date.now())).customerId).toBe(other.id);
  });

  it('a refused password change keeps the sessions', async () => {
    const c = await customer();
    const s = await sessions.create(w.alice.websiteId, c.id, Date.now());
    expectInvalid(await api.patch(`${url}/${c.id}`, { password: 'brand-new-1', tags: [''] }), 'tags[0]');
    await sessions.renew(s.token, Date.now());
  });

  it('Delete ends every session of the customer', async () => {
    const c = await customer();
    const s = await sessions.create(w.alice.websiteId, c.id, Date.now());
    expectNoBody(await api.del(`${url}/${c.id}`), 204);
    await expect(sessions.renew(s.token, Date.now())).rejects.toMatchObject({ status: 'UNAUTHENTICATED' });
  });

  it('is_active false stops renewal and new sessions; true allows them again', async () => {
    const c = await customer();
    const s = await sessions.create(w.alice.websiteId, c.id, Date.now());
    expect(expectStatus(await api.patch(`${url}/${c.id}`, { is_active: false }), 200).is_active).toBe(false);
    await expect(sessions.renew(s.token, Date.now())).rejects.toMatchObject({ status: 'UNAUTHENTICATED' });
    await expect(sessions.create(w.alice.websiteId, c.id, Date.now())).rejects.toMatchObject({ status: 'FAILED_PRECONDITION' });
    expectStatus(await api.patch(`${url}/${c.id}`, { is_active: true }), 200);
    await sessions.renew(s.token, Date.now());
  });

  it('an expired or unknown session is not renewed; a session of another website customer cannot be started', async () => {
    const c = await customer();
    const s = await sessions.create(w.alice.websiteId, c.id, Date.now());
    await expect(sessions.renew(s.token, s.expireTime + 1)).rejects.toMatchObject({ status: 'UNAUTHENTICATED' });
    await expect(sessions.renew('made-up', Date.now())).rejects.toMatchObject({ status: 'UNAUTHENTICATED' });
    await expect(sessions.create(w.bob.websiteId, c.id, Date.now())).rejects.toMatchObject({ status: 'FAILED_PRECONDITION' });
  });
});

describe('tags, groups, is_active', () => {
  it('tags: duplicates kept once; each 1 to 64 characters; strings only', async () => {
    const c = await customer({ tags: ['vip', 'de', 'vip', 'x'.repeat(64)] });
    expect(c.tags).toEqual(['vip', 'de', 'x'.repeat(64)]);
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { email: email(), password: 'secret-123', tags: [''] }), 'tags[0]');
      expectInvalid(await api.post(url, { email: email(), password: 'secret-123', tags: ['ok', 'x'.repeat(65)] }), 'tags[1]');
      expectInvalid(await api.post(url, { email: email(), password: 'secret-123', tags: [1] }), 'tags[0]');
      expectInvalid(await api.post(url, { email: email(), password: 'secret-123', tags: 'vip' }), 'tags');
      expectInvalid(await api.post(url, { email: email(), password: 'secret-123', tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }), 'tags');
    });
    const updated = expectStatus(await api.patch(`${url}/${c.id}`, { tags: ['a', 'a'] }), 200);
    expect(updated.tags).toEqual(['a']);
  });

  it('manual_group_ids: only MANUAL groups of the same website; group_ids is output-only', async () => {
    const manual = await api.create(`${w.site}/customer_groups`, { display_name: 'Manual A' });
    const dynamic = await api.create(`${w.site}/customer_groups`, { display_name: 'Dynamic A', type: 'DYNAMIC' });
    const foreign = await as(t, w.bob).create(`${w.otherSite}/customer_groups`, { display_name: 'Bob manual' });
    await refusedUnchanged(async () => {
      for (const ids of [[dynamic.id], [foreign.id], ['nope'], [manual.id, 'nope']]) {
        expectInvalid(await api.post(url, { email: email(), password: 'secret-123', manual_group_ids: ids }), 'manual_group_ids');
      }
      expectInvalid(await api.post(url, { email: email(), password: 'secret-123', manual_group_ids: manual.id }), 'manual_group_ids');
    });
    const c = await customer({ manual_group_ids: [manual.id, manual.id], group_ids: [dynamic.id] });
    expect(c.manual_group_ids).toEqual([manual.id]);
    expect(c.group_ids).toEqual([manual.id]);
    expectInvalid(await api.patch(`${url}/${c.id}`, { manual_group_ids: [foreign.id] }), 'manual_group_ids');
    expect(expectStatus(await api.get(`${url}/${c.id}`), 200)).toEqual(c);
    const cleared = expectStatus(await api.patch(`${url}/${c.id}`, { manual_group_ids: [] }), 200);
    expect(cleared).toMatchObject({ manual_group_ids: [], group_ids: [] });
  });

  it('display_name at most 255; is_active must be a boolean', async () => {
    await refusedUnchanged(async () => {
      expectInvalid(await api.post(url, { email: email(), password: 'secret-123', display_name: 'x'.repeat(256) }), 'display_name');
      expectInvalid(await api.post(url, { email: email(), password: 'secret-123', is_active: 'no' }), 'is_active');
      expectInvalid(await api.post(url, { email: email(), password: 'secret-123', surname: 'x' }), 'surname');
    });
    expect((await customer({ is_active: false })).is_active).toBe(false);
  });

  it('validate_only runs every check and stores nothing', async () => {
    const address = email();
    const would = expectStatus(await api.post(`${url}?validate_only=true`, { email: address, password: 'secret-123', tags: ['v'] }), 200);
    expect(would.email).toBe(address);
    expect((await list(t, w.alice.token, url, { filter: `email = "${address}"` })).total_size).toBe(0);
    expectInvalid(await api.post(`${url}?validate_only=true`, { email: address, password: 'short' }), 'password');
  });
});

describe('attributes', () => {
  let ids: Record<string, string>;
  beforeAll(async () => {
    const defs = [
      { key: 'nick', type: 'TEXT', min_length: 2, max_length: 5 },
      { key: 'bio', type: 'TEXTAREA' },
      { key: 'age', type: 'NUMBER', min_value: 0, max_value: 150 },
      { key: 'newsletter', type: 'BOOLEAN' },
      { key: 'birthday', type: 'DATE' },
      { key: 'size', type: 'SELECT', options: [{ value: 's', display_name: 'S' }, { value: 'm', display_name: 'M' }] },
      { key: 'hobbies', type: 'MULTISELECT', options: [{ value: 'chess', display_name: 'Chess' }, { value: 'golf', display_name: 'Golf' }] },
      { key: 'legacy', type: 'TEXT' },
    ];
    ids = {};
    for (const d of defs) ids[d.key] = (await api.create(attributesUrl(), { display_name: d.key, ...d })).id;
  });

  it('accepts a value of every type and omits attributes when empty', async () => {
    const attributes = { nick: 'ada', bio: 'x'.repeat(8192), age: 36.5, newsletter: false, birthday: '1815-12-10', size: 'm', hobbies: ['chess', 'golf', 'chess'] };
    const c = await customer({ attributes });
    expect(c.attributes).toEqual({ ...attributes, hobbies: ['chess', 'golf'] });
    const emptied = expectStatus(await api.patch(`${url}/${c.id}`, { attributes: { nick: '', age: null, hobbies: [] } }), 200);
    expect(emptied.attributes).toBeUndefined();
    expect((await customer({ attributes: {} })).attributes).toBeUndefined();
  });

  it('is replaced whole when sent', async () => {
    const c = await customer({ attributes: { nick: 'bob', age: 3 } });
    const replaced = expectStatus(await api.patch(`${url}/${c.id}`, { attributes: { size: 's' } }), 200);
    expect(replaced.attributes).toEqual({ size: 's' });
    const untouched = expectStatus(await api.patch(`${url}/${c.id}`, { display_name: 'No attributes sent' }), 200);
    expect(untouched.attributes).toEqual({ size: 's' });
  });

  it('an unknown key or an unacceptable value is INVALID_ARGUMENT on attributes.<key>', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ unknown_key: 'x' }, 'attributes.unknown_key'],
      [{ nick: 'a' }, 'attributes.nick'],
      [{ nick: 'toolong' }, 'attributes.nick'],
      [{ nick: 5 }, 'attributes.nick'],
      [{ bio: 'x'.repeat(8193) }, 'attributes.bio'],
      [{ age: -1 }, 'attributes.age'],
      [{ age: 151 }, 'attributes.age'],
      [{ age: '30' }, 'attributes.age'],
      [{ newsletter: 'yes' }, 'attributes.newsletter'],
      [{ birthday: '2024-02-30' }, 'attributes.birthday'],
      [{ birthday: '10.12.1815' }, 'attributes.birthday'],
      [{ size: 'xl' }, 'attributes.size'],
      [{ size: ['s'] }, 'attributes.size'],
      [{ hobbies: ['chess', 'darts'] }, 'attributes.hobbies'],
      [{ hobbies: 'chess' }, 'attributes.hobbies'],
      [{ hobbies: [1] }, 'attributes.hobbies[0]'],
      [{ nick: { a: 1 } }, 'attributes.nick'],
    ];
    const c = await customer({ attributes: { nick: 'ok' } });
    await refusedUnchanged(async () => {
      for (const [attributes, field] of cases) {
        expectInvalid(await api.post(url, { email: email(), password: 'secret-123', attributes }), field);
        expectInvalid(await api.patch(`${url}/${c.id}`, { attributes }), field);
      }
      expectInvalid(await api.post(url, { email: email(), password: 'secret-123', attributes: ['nick'] }), 'attributes');
    });
  });

  it('an is_required field must have a value; on create an absent object counts as empty', async () => {
    const req = await api.create(attributesUrl(), { key: 'member_no', display_name: 'Member no', type: 'TEXT', is_required: true });
    try {
      await refusedUnchanged(async () => {
        expectInvalid(await api.post(url, { email: email(), password: 'secret-123' }), 'attributes.member_no');
        expectInvalid(await api.post(url, { email: email(), password: 'secret-123', attributes: { member_no: '' } }), 'attributes.member_no');
      });
      const c = await customer({ attributes: { member_no: 'A1' } });
      expectInvalid(await api.patch(`${url}/${c.id}`, { attributes: { nick: 'abc' } }), 'attributes.member_no');
      // A write that does not send attributes is not held to a rule added after the customer was stored.
      expectStatus(await api.patch(`${url}/${c.id}`, { display_name: 'Fine' }), 200);
    } finally {
      expectNoBody(await api.del(`${attributesUrl()}/${req.id}`), 204);
    }
  });

  it('an inactive field keeps its value: left out or sent unchanged it stays, changed or cleared it is refused, new values are refused', async () => {
    const c = await customer({ attributes: { legacy: 'kept', nick: 'abc' } });
    expectStatus(await api.patch(`${attributesUrl()}/${ids.legacy}`, { is_active: false }), 200);
    expect(expectStatus(await api.get(`${url}/${c.id}`), 200).attributes).toEqual({ legacy: 'kept', nick: 'abc' });
    const same = expectStatus(await api.patch(`${url}/${c.id}`, { attributes: { legacy: 'kept', nick: 'abcd' } }), 200);
    expect(same.attributes).toEqual({ legacy: 'kept', nick: 'abcd' });
    const leftOut = expectStatus(await api.patch(`${url}/${c.id}`, { attributes: { nick: 'xyz' } }), 200);
    expect(leftOut.attributes).toEqual({ legacy: 'kept', nick: 'xyz' });
    expectInvalid(await api.patch(`${url}/${c.id}`, { attributes: { legacy: 'changed' } }), 'attributes.legacy');
    expectInvalid(await api.patch(`${url}/${c.id}`, { attributes: { legacy: null } }), 'attributes.legacy');
    expect(expectStatus(await api.get(`${url}/${c.id}`), 200)).toEqual(leftOut);
    expectInvalid(await api.post(url, { email: email(), password: 'secret-123', attributes: { legacy: 'new' } }), 'attributes.legacy');
    expectStatus(await api.patch(`${attributesUrl()}/${ids.legacy}`, { is_active: true }), 200);
  });
});

describe('list: filters and order (SPEC 4.2)', () => {
  let listUrl: string;
  let made: any[];
  beforeAll(async () => {
    // A website of its own, so counts are exact.
    const carol = await t.signUp();
    await t.waitForOperation(carol.operation, carol.token);
    const carolApi = as(t, carol);
    listUrl = `${process.env.NOOP ?? ''}/tenant-api/v1/websites/${carol.websiteId}/customers`;
    made = [];
    for (let i = 0; i < 12; i++) {
      made.push(
        await carolApi.create(listUrl, {
          email: `${String.fromCharCode(108 - i)}${i}@Shop${i % 2}.example`,
          password: 'secret-123',
          display_name: i % 3 === 0 ? `Fizz ${i}` : `Name ${i}`,
          tags: i % 4 === 0 ? ['vip', 'early'] : ['regular'],
          is_active: i !== 5,
        }),
      );
    }
    (w as any).carol = carol;
  });
  const carolList = (query: Record<string, string | number>) => list(t, (w as any).carol.token, listUrl, query);
  const idsOf = (page: any) => page.customers.map((c: any) => c.id);

  it('tags:"vip" is has-membership; paging through a tags filter returns exactly the members', async () => {
    const page = await carolList({ filter: 'tags:"vip"' });
    expect(page.total_size).toBe(3);
    expect(new Set(idsOf(page))).toEqual(new Set(made.filter((_, i) => i % 4 === 0).map((c) => c.id)));
    expect((await carolList({ filter: 'tags:"vi"' })).total_size).toBe(0);
    expect((await carolList({ filter: 'NOT tags:"vip"' })).total_size).toBe(9);
    const pages = await walk(t, (w as any).carol.token, listUrl, { filter: 'tags:"regular"', page_size: 4 });
    expect(pages.flatMap(idsOf)).toHaveLength(9);
    expect(pages[0].total_size).toBe(9);
  });

  it('the email filter is case-insensitive', async () => {
    const target = made[3];
    expect(idsOf(await carolList({ filter: `email = "${target.email.toUpperCase()}"` }))).toEqual([target.id]);
    expect((await carolList({ filter: 'email:"SHOP1"' })).total_size).toBe(6);
  });

  it('filters on display_name, is_active and create_time', async () => {
    expect((await carolList({ filter: 'display_name:"fizz"' })).total_size).toBe(4);
    expect(idsOf(await carolList({ filter: 'is_active = false' }))).toEqual([made[5].id]);
    expect((await carolList({ filter: `create_time > "${made[5].create_time}"` })).total_size).toBeGreaterThanOrEqual(6);
    expect(idsOf(await carolList({ filter: 'tags:"vip" AND is_active = true AND display_name:"fizz"' }))).toEqual([made[0].id]);
  });

  it('default order is create_time desc; email sorts both ways; other fields are refused naming them', async () => {
    const byDefault = await carolList({ page_size: 100 });
    expect(idsOf(byDefault)).toEqual([...made].reverse().map((c) => c.id));
    const emails = (await carolList({ order_by: 'email', page_size: 100 })).customers.map((c: any) => c.email);
    expect(emails).toEqual([...emails].sort());
    const desc = (await carolList({ order_by: 'email desc', page_size: 100 })).customers.map((c: any) => c.email);
    expect(desc).toEqual([...emails].reverse());
    const api2 = as(t, (w as any).carol);
    expectInvalid(await api2.get(`${listUrl}?order_by=display_name`), 'order_by');
    for (const field of ['password', 'attributes', 'group_ids', 'manual_group_ids']) {
      expectInvalid(await api2.get(`${listUrl}?filter=${encodeURIComponent(`${field} = "x"`)}`), field);
    }
  });

  it('List pages carry group_ids and manual_group_ids', async () => {
    const carolApi = as(t, (w as any).carol);
    const g = await carolApi.create(listUrl.replace('/customers', '/customer_groups'), { display_name: 'Listed' });
    expectStatus(await carolApi.patch(`${listUrl}/${made[0].id}`, { manual_group_ids: [g.id] }), 200);
    const page = await carolList({ page_size: 100 });
    const row = page.customers.find((c: any) => c.id === made[0].id);
    expect(row).toMatchObject({ manual_group_ids: [g.id], group_ids: [g.id] });
    for (const c of page.customers.filter((x: any) => x.id !== made[0].id)) expect(c.group_ids).toEqual([]);
  });
});

describe('tenancy and concurrency', () => {
  it("another tenant's customers answer NOT_FOUND; If-Match with a stale etag is ABORTED", async () => {
    const foreign = await as(t, w.bob).create(`${w.otherSite}/customers`, { email: 'private@example.com', password: 'secret-123' });
    for (const target of [`${w.otherSite}/customers/${foreign.id}`, `${url}/${foreign.id}`]) {
      expectError(await api.get(target), 404, 'NOT_FOUND');
      expectError(await api.patch(target, { display_name: 'x' }), 404, 'NOT_FOUND');
      expectError(await api.del(target), 404, 'NOT_FOUND');
    }
    expectError(await api.post(`${w.otherSite}/customers`, { email: 'x@example.com', password: 'secret-123' }), 404, 'NOT_FOUND');
    const c = await customer();
    expectStatus(await api.patch(`${url}/${c.id}`, { display_name: 'v2' }), 200);
    const error = expectError(await api.patch(`${url}/${c.id}`, { display_name: 'v3' }, { 'if-match': `"${c.etag}"` }), 409, 'ABORTED');
    const current = error.details.find((d: any) => d.type === 'RESOURCE_INFO').resource;
    expect(current).toMatchObject({ display_name: 'v2', group_ids: [] });
    expect(current.password).toBeUndefined();
  });
});
