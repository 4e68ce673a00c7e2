/**
 * Email templates: one per kind created at provisioning, editable, not deletable; placeholders
 * checked against the kind's declared ones; `:render` previews with sample values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectError, expectInvalid, expectShape, expectStatus, list, violations } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let templatesUrl: string;

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  templatesUrl = `${API}/websites/${alice.websiteId}/email_templates`;
});
afterAll(() => t?.close());

const KINDS = ['customer_email_confirmation', 'customer_password_reset', 'customer_welcome', 'member_invitation'];
const get = (url: string, token = alice.token) => t.request('GET', url, { token });
const patch = (url: string, body: unknown, headers: Record<string, string> = {}) => t.request('PATCH', url, { token: alice.token, body, headers });
const render = (kind: string, body: unknown = {}, token = alice.token) => t.request('POST', `${templatesUrl}/${kind}:render`, { token, body });

describe('provisioning', () => {
  it('creates one template of every kind, addressed by its kind, each with its declared placeholders', async () => {
    const page = await list(t, alice.token, templatesUrl);
    expect(page.email_templates.map((e: any) => e.id)).toEqual(KINDS);
    expect(page.total_size).toBe(KINDS.length);
    const reset = page.email_templates.find((e: any) => e.kind === 'customer_password_reset');
    expect(reset.name).toBe(`websites/${alice.websiteId}/email_templates/customer_password_reset`);
    expect(reset.is_customized).toBe(false);
    expect(reset.placeholders.find((p: any) => p.name === 'reset_url')).toMatchObject({ required: true });
    expect(reset.subject).toContain('{{site_name}}');
  });

  it('re-running the provisioning step adds no duplicates and keeps edits', async () => {
    expectStatus(await patch(`${templatesUrl}/customer_welcome`, { subject: 'Hi from {{site_name}}' }), 200);
    const website = await t.platform.deps.database.db.selectFrom('websites').selectAll().where('id', '=', alice.websiteId).executeTakeFirstOrThrow();
    const { defaultEmailTemplatesStep } = await import('../../src/email-templates/email-template.resource.js');
    await defaultEmailTemplatesStep.run(t.platform.deps.database.db, website, undefined as never);
    const page = await list(t, alice.token, templatesUrl);
    expect(page.total_size).toBe(KINDS.length);
    expect(page.email_templates.find((e: any) => e.id === 'customer_welcome').subject).toBe('Hi from {{site_name}}');
  });
});

describe('editing', () => {
  it('subject and bodies are editable with declared placeholders; is_customized follows', async () => {
    const res = await patch(`${templatesUrl}/customer_password_reset`, { subject: 'Password help for {{ customer_name }}', body: '<p>Go: {{reset_url}}</p>' });
    const body = expectStatus(res, 200);
    await expectShape(t, 'UpdateEmailTemplate', 200, body);
    expect(body).toMatchObject({ subject: 'Password help for {{ customer_name }}', body: '<p>Go: {{reset_url}}</p>', is_customized: true });
  });

  it('an undeclared placeholder is INVALID_ARGUMENT naming the field and the placeholder; nothing is written', async () => {
    const before = expectStatus(await get(`${templatesUrl}/customer_welcome`), 200);
    const error = expectInvalid(await patch(`${templatesUrl}/customer_welcome`, { subject: 'Hi {{first_name}}', body: 'Your {{coupon_code}}' }), 'subject');
    expect(violations(error).map((v) => v.field).sort()).toEqual(['body', 'subject']);
    expect(error.message).toContain('{{first_name}}');
    expect(expectStatus(await get(`${templatesUrl}/customer_welcome`), 200)).toEqual(before);
  });

  it('a body without a required placeholder, or with an unclosed {{, is refused', async () => {
    const error = expectInvalid(await patch(`${templatesUrl}/customer_password_reset`, { body: '<p>Reset it somehow</p>' }), 'body');
    expect(error.message).toContain('{{reset_url}}');
    expectInvalid(await patch(`${templatesUrl}/member_invitation`, { text_body: 'Join: {{accept_url' }), 'text_body');
  });

  it('wrong types, blank or oversize values and unknown fields are INVALID_ARGUMENT naming the field', async () => {
    expectInvalid(await patch(`${templatesUrl}/customer_welcome`, { subject: 42 }), 'subject');
    expectInvalid(await patch(`${templatesUrl}/customer_welcome`, { subject: '   ' }), 'subject');
    expectInvalid(await patch(`${templatesUrl}/customer_welcome`, { subject: 'x'.repeat(256) }), 'subject');
    expectInvalid(await patch(`${templatesUrl}/customer_welcome`, { body: 'x'.repeat(100_001) }), 'body');
    expectInvalid(await patch(`${templatesUrl}/customer_welcome`, { colour: 'red' }), 'colour');
    expectInvalid(await patch(`${templatesUrl}/customer_welcome?update_mask=subject`, {}), 'subject');
  });

  it('a stale If-Match is ABORTED', async () => {
    const current = expectStatus(await get(`${templatesUrl}/customer_email_confirmation`), 200);
    expectStatus(await patch(`${templatesUrl}/customer_email_confirmation`, { subject: 'Confirm please' }), 200);
    expectError(await patch(`${templatesUrl}/customer_email_confirmation`, { subject: 'Mine' }, { 'if-match': `"${current.etag}"` }), 409, 'ABORTED');
  });

  it('templates cannot be deleted (FAILED_PRECONDITION EMAIL_TEMPLATE_REQUIRED) or created', async () => {
    const error = expectError(await t.request('DELETE', `${templatesUrl}/customer_welcome`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE').reason).toBe('EMAIL_TEMPLATE_REQUIRED');
    expectStatus(await get(`${templatesUrl}/customer_welcome`), 200);
    expect((await t.request('POST', templatesUrl, { token: alice.token, body: { subject: 'x', body: 'y' } })).statusCode).toBe(405);
  });

  it('filters by kind and sorts by update_time; other fields are refused', async () => {
    const page = await list(t, alice.token, templatesUrl, { filter: 'kind = member_invitation' });
    expect(page.email_templates.map((e: any) => e.id)).toEqual(['member_invitation']);
    const sorted = await list(t, alice.token, templatesUrl, { order_by: 'update_time desc' });
    expect(sorted.email_templates).toHaveLength(KINDS.length);
    expectInvalid(await get(`${templatesUrl}?filter=${encodeURIComponent('subject:"x"')}`), 'subject');
  });
});

describe(':render', () => {
  it('fills placeholders with given values and sample values, escaping HTML in the body only', async () => {
    const res = await render('member_invitation', { values: { inviter_name: 'Eve <script>', account_name: 'Acme\r\nBcc: x@y' } });
    const body = expectStatus(res, 200);
    await expectShape(t, 'RenderEmailTemplate', 200, body);
    expect(body.subject).toBe('Eve <script> invited you to Acme Bcc: x@y');
    expect(body.body).toContain('Eve &lt;script&gt; invited you');
    expect(body.body).toContain('https://app.example.com/invitations/sample:accept');
    expect(body.text_body).toContain('Eve <script>');
  });

  it('previews unsaved text, checked like an Update, and writes nothing', async () => {
    const before = expectStatus(await get(`${templatesUrl}/customer_welcome`), 200);
    const body = expectStatus(await render('customer_welcome', { subject: 'Draft for {{customer_email}}' }), 200);
    expect(body.subject).toBe('Draft for ada@example.com');
    expectInvalid(await render('customer_welcome', { body: '{{nope}}' }), 'body');
    expect(expectStatus(await get(`${templatesUrl}/customer_welcome`), 200)).toEqual(before);
  });

  it('a value for an undeclared placeholder is INVALID_ARGUMENT on values.<name>', async () => {
    expectInvalid(await render('customer_welcome', { values: { coupon: 'X' } }), 'values.coupon');
    expectInvalid(await render('customer_welcome', { values: { site_name: 3 } }), 'values.site_name');
  });
});

describe('tenancy', () => {
  it('another tenant’s templates are NOT_FOUND for Get, Update, Delete and :render, and stay unchanged', async () => {
    const bobUrl = `${API}/websites/${bob.websiteId}/email_templates`;
    const before = expectStatus(await get(`${bobUrl}/customer_welcome`, bob.token), 200);
    expectError(await get(`${bobUrl}/customer_welcome`), 404, 'NOT_FOUND');
    expectError(await t.request('PATCH', `${bobUrl}/customer_welcome`, { token: alice.token, body: { subject: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `${bobUrl}/customer_welcome:render`, { token: alice.token, body: {} }), 404, 'NOT_FOUND');
    expectError(await get(`${templatesUrl}/no_such_kind`), 404, 'NOT_FOUND');
    expect(expectStatus(await get(`${bobUrl}/customer_welcome`, bob.token), 200)).toEqual(before);
  });
});
