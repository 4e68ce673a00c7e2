/**
 * Theme (singleton `websites/{w}/theme`): the CSS-variable map (unknown variables survive a round
 * trip), logo, favicon, main menu and footer block references (missing or foreign ids refused),
 * the default theme at provisioning, singleton conventions (SPEC 2.1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectError, expectInvalid, expectShape, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let themeUrl: string;

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  themeUrl = `${API}/websites/${alice.websiteId}/theme`;
});
afterAll(() => t?.close());

const get = (url = themeUrl, token = alice.token, headers: Record<string, string> = {}) => t.request('GET', url, { token, headers });
const patch = (body: unknown, query = '', headers: Record<string, string> = {}, url = themeUrl, token = alice.token) =>
  t.request('PATCH', `${url}${query}`, { token, body, headers });

describe('default theme', () => {
  it('provisioning creates the default theme: known variables with their defaults, no references, no id', async () => {
    const body = expectStatus(await get(), 200);
    await expectShape(t, 'GetTheme', 200, body);
    expect(body.name).toBe(`websites/${alice.websiteId}/theme`);
    expect(body.id).toBeUndefined();
    expect(body.variables['--color-primary']).toBe('#1f6feb');
    expect(body.logo_media_id).toBeUndefined();
    expect(body.create_time).toBeDefined();
  });

  it('a theme never written answers its defaults without timestamps, etag "0"; the first Update creates it; re-provisioning keeps it', async () => {
    await t.platform.deps.database.db.deleteFrom('themes').where('id', '=', bob.websiteId).execute();
    const bobTheme = `${API}/websites/${bob.websiteId}/theme`;
    const never = expectStatus(await get(bobTheme, bob.token), 200);
    expect(never.etag).toBe('0');
    expect(never.create_time).toBeUndefined();
    expect(never.update_time).toBeUndefined();
    expect(never.variables['--radius']).toBe('6px');
    expectError(await patch({ variables: { '--radius': '0' } }, '', { 'if-match': '"stale"' }, bobTheme, bob.token), 409, 'ABORTED');
    const first = expectStatus(await patch({ variables: { '--radius': '0' } }, '', { 'if-match': '"0"' }, bobTheme, bob.token), 200);
    expect(first.create_time).toBeDefined();
    expect(first.variables['--radius']).toBe('0');
    const website = await t.platform.deps.database.db.selectFrom('websites').selectAll().where('id', '=', bob.websiteId).executeTakeFirstOrThrow();
    const { defaultThemeStep } = await import('../../src/theme/theme.resource.js');
    await defaultThemeStep(t.platform.deps.database.dialect, () => false).run(t.platform.deps.database.db, website, undefined as never);
    expect(expectStatus(await get(bobTheme, bob.token), 200)).toEqual(first);
  });
});

describe('variables', () => {
  it('an unknown variable survives a round trip; a known one left out returns to its default', async () => {
    const sent = { '--color-primary': '#ff0000', '--x-brand-gradient': 'linear-gradient(90deg, #f00, #00f)' };
    const updated = expectStatus(await patch({ variables: sent }), 200);
    await expectShape(t, 'UpdateTheme', 200, updated);
    expect(updated.variables['--x-brand-gradient']).toBe('linear-gradient(90deg, #f00, #00f)');
    expect(updated.variables['--color-primary']).toBe('#ff0000');
    expect(updated.variables['--radius']).toBe('6px');
    const read = expectStatus(await get(), 200);
    expect(read).toEqual(updated);
    // Sent back as read, nothing is lost.
    const again = expectStatus(await patch({ variables: read.variables }), 200);
    expect(again.variables).toEqual(read.variables);
  });

  it('bad names, non-string, oversize or unsafe values are INVALID_ARGUMENT naming the variable; nothing is written', async () => {
    const before = expectStatus(await get(), 200);
    expectInvalid(await patch({ variables: { 'color-primary': 'red' } }), 'variables.color-primary');
    expectInvalid(await patch({ variables: { '--ok': 'red; } body { display: none' } }), 'variables.--ok');
    expectInvalid(await patch({ variables: { '--ok': '</style><script>' } }), 'variables.--ok');
    expectInvalid(await patch({ variables: { '--ok': 'x'.repeat(257) } }), 'variables.--ok');
    const many = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`--v${i}`, '1']));
    expectInvalid(await patch({ variables: many }), 'variables');
    expectError(await patch({ variables: { '--ok': 3 } }), 400, 'INVALID_ARGUMENT');
    expectError(await patch({ variables: 'red' }), 400, 'INVALID_ARGUMENT');
    expect(expectStatus(await get(), 200)).toEqual(before);
  });

  it('variables null with update_mask returns every variable to its default', async () => {
    const reset = expectStatus(await patch({ variables: null }, '?update_mask=variables'), 200);
    expect(reset.variables['--color-primary']).toBe('#1f6feb');
    expect(reset.variables['--x-brand-gradient']).toBeUndefined();
  });
});

const createBlock = async (user: TestUser, identifier: string) =>
  expectStatus(
    await t.request('POST', `${API}/websites/${user.websiteId}/cms_blocks`, { token: user.token, body: { identifier, title: 'Footer', content: '<p>Footer</p>' } }),
    201,
  );
/** A 1×1 PNG uploaded through the media multipart upload (part `file`). */
const uploadImage = async (user: TestUser) => {
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  const boundary = 'themetestboundary';
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await t.app.inject({
    method: 'POST',
    url: `${API}/websites/${user.websiteId}/media`,
    headers: { authorization: `Bearer ${user.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  });
  return expectStatus(res as never, 201);
};

describe('references', () => {
  it('a missing id for logo, favicon, main menu or footer block is INVALID_ARGUMENT naming each field; nothing is written', async () => {
    const before = expectStatus(await get(), 200);
    const res = await patch({ logo_media_id: 'nope', favicon_media_id: 'nope2', main_menu_id: 'nope3', footer_block_id: 'nope4' });
    const error = expectInvalid(res, 'logo_media_id');
    expect(error.details.filter((d: any) => d.type === 'FIELD_VIOLATION').map((d: any) => d.field).sort()).toEqual([
      'favicon_media_id',
      'footer_block_id',
      'logo_media_id',
      'main_menu_id',
    ]);
    expect(expectStatus(await get(), 200)).toEqual(before);
  });

  it('provisioning links the main menu; rows of the same website are accepted', async () => {
    expect(expectStatus(await get(), 200).main_menu_id).toBe('main');
    const block = await createBlock(alice, 'footer');
    const image = await uploadImage(alice);
    const updated = expectStatus(await patch({ footer_block_id: block.id, logo_media_id: image.id, favicon_media_id: image.id }), 200);
    expect(updated).toMatchObject({ footer_block_id: block.id, logo_media_id: image.id, favicon_media_id: image.id, main_menu_id: 'main' });
  });

  it('ids of another website’s block, image or menu are refused like missing ones and never followed', async () => {
    const before = expectStatus(await get(), 200);
    const block = await createBlock(bob, 'bob-footer');
    const image = await uploadImage(bob);
    expectInvalid(await patch({ footer_block_id: block.id }), 'footer_block_id');
    expectInvalid(await patch({ logo_media_id: image.id }), 'logo_media_id');
    expect(expectStatus(await get(), 200)).toEqual(before);
  });

  it('deleting the referenced block, image or menu clears the field in the same Delete (no id of a deleted row is left)', async () => {
    const block = await createBlock(alice, 'footer-to-delete');
    const image = await uploadImage(alice);
    const menu = expectStatus(
      await t.request('POST', `${API}/websites/${alice.websiteId}/navigation_menus`, { token: alice.token, body: { identifier: 'doomed-menu', display_name: 'Doomed' } }),
      201,
    );
    const linked = expectStatus(await patch({ footer_block_id: block.id, logo_media_id: image.id, main_menu_id: menu.id }), 200);
    const remove = async (url: string) => expect((await t.request('DELETE', url, { token: alice.token })).statusCode).toBe(204);

    await remove(`${API}/websites/${alice.websiteId}/cms_blocks/${block.id}`);
    const afterBlock = expectStatus(await get(), 200);
    expect(afterBlock.footer_block_id).toBeUndefined();
    expect(afterBlock.etag).not.toBe(linked.etag);
    await remove(`${API}/websites/${alice.websiteId}/media/${image.id}`);
    expect(expectStatus(await get(), 200).logo_media_id).toBeUndefined();
    await remove(`${API}/websites/${alice.websiteId}/navigation_menus/${menu.id}`);
    const after = expectStatus(await get(), 200);
    expect(after.main_menu_id).toBeUndefined();
    expect(after.variables).toEqual(linked.variables);
  });
});

describe('conventions', () => {
  it('a stale If-Match is ABORTED with the current theme; If-None-Match answers 304', async () => {
    const current = expectStatus(await get(), 200);
    expectStatus(await patch({ variables: { '--radius': '2px' } }), 200);
    const error = expectError(await patch({ variables: { '--radius': '4px' } }, '', { 'if-match': `"${current.etag}"` }), 409, 'ABORTED');
    const latest = error.details.find((d: any) => d.type === 'RESOURCE_INFO').resource;
    expect(latest.variables['--radius']).toBe('2px');
    expect((await get(themeUrl, alice.token, { 'if-none-match': `"${latest.etag}"` })).statusCode).toBe(304);
  });

  it('validate_only answers the would-be theme and writes nothing', async () => {
    const before = expectStatus(await get(), 200);
    const would = expectStatus(await patch({ variables: { '--radius': '9px' } }, '?validate_only=true'), 200);
    expect(would.variables['--radius']).toBe('9px');
    expect(expectStatus(await get(), 200)).toEqual(before);
  });

  it('unknown fields are INVALID_ARGUMENT; only Get and Update exist', async () => {
    expectInvalid(await patch({ colour: 'red' }), 'colour');
    expect((await t.request('DELETE', themeUrl, { token: alice.token })).statusCode).toBe(405);
    expect((await t.request('POST', themeUrl, { token: alice.token, body: {} })).statusCode).toBe(405);
  });

  it('another tenant’s theme is NOT_FOUND for Get and Update and stays unchanged', async () => {
    const bobTheme = `${API}/websites/${bob.websiteId}/theme`;
    const before = expectStatus(await get(bobTheme, bob.token), 200);
    expectError(await get(bobTheme), 404, 'NOT_FOUND');
    expectError(await patch({ variables: {} }, '', {}, bobTheme), 404, 'NOT_FOUND');
    expect(expectStatus(await get(bobTheme, bob.token), 200)).toEqual(before);
  });
});
