import { fastifyCookie } from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { enqueueWebsiteMail } from '../email-templates/website-mail.js';
import type { AreaDeps, SiteContext, SiteContribution, SiteDeps, SiteView, SiteVisitor } from '../platform/area.js';
import type { RequestContext } from '../platform/auth/context.js';
import { verifyPassword } from '../platform/auth/passwords.js';
import { randomToken, settleNoSoonerThan, tokenHash } from '../platform/crypto.js';
import { AlreadyExists, ApiError, InvalidArgument, NotFound, type FieldViolation } from '../platform/errors.js';
import { toApiError } from '../platform/http/errors.js';
import { addressKey } from '../platform/http/rate-limit.js';
import { createValidatorCompiler } from '../platform/http/validation.js';
import type { ResourceService } from '../platform/resource/engine.js';
import { inputSchema } from '../platform/resource/schemas.js';
import { readSiteSettings } from '../settings/index.js';
import type { AttributeType } from './attribute-values.js';
import { createCustomerSessions, CUSTOMER_SESSION_LIFETIME_MS } from './customer-sessions.service.js';
import { membershipsOf } from './customers.repo.js';
import { ACCOUNT_TEMPLATES } from './customers.templates.js';

/**
 * Visitors as customers on the rendered websites (issue 15; docs/decisions.md, "Rendered websites:
 * visitors as customers"): sign-up, sign-in, sign-out, profile, password change and reset, as root
 * routes of the site surface, and the signed-in visitor of every site request.
 *
 * Customers are created and changed through the customers resource service (its JSON Schema and
 * hooks: the same rules as the tenant API); sessions through the customer session service.
 */

/** The session cookie: the bearer secret of a `customer_sessions` row (only its hash is stored). */
export const SESSION_COOKIE = 'customer_session';
/** Failed sign-ins per website, client address and email in a window (then 429 until it ends). */
export const SIGN_IN_FAILURES = 10;
/** Password reset requests per website, client address and email in a window. */
export const RESET_REQUESTS = 3;
export const ATTEMPT_WINDOW_MS = 15 * 60_000;
/** A mailed reset link works once, for this long. */
export const RESET_LIFETIME_MS = 3600_000;
/**
 * A reset request answers no earlier than this after it arrived, whether the address has an
 * account or not (the token and the mail hide inside the same answer time).
 */
const RESET_ANSWER_MS = 250;

const SETTING_REGISTRATION = 'customer.account.registration_enabled';
const SETTING_MIN_LENGTH = 'customer.password.min_length';
const CUSTOMERS = 'websites/{website_id}/customers';
const NO_STORE = 'private, no-store';
/** What a session cookie may look like (base64url of 32 bytes); anything else is not even looked up. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,100}$/;

type Form = Record<string, string | string[]>;

/** An attribute the site's forms ask for (active and `show_in_registration`). */
interface FormAttribute {
  key: string;
  label: string;
  hint: string;
  type: AttributeType;
  required: boolean;
  options: Array<{ value: string; label: string }>;
}

/** A field as the `account/field` template renders it. */
interface FieldView {
  name: string;
  id: string;
  label: string;
  kind: string;
  value: string;
  required: boolean;
  hint?: string;
  error?: string;
  autocomplete?: string;
  step?: string;
  describedby: string;
  options?: Array<{ value: string; label: string; checked: boolean }>;
}

interface FormPage {
  heading: string;
  title: string;
  action: string;
  submit: string;
  fields: FieldView[];
  intro?: string;
  notice?: string;
  details?: Array<{ label: string; value: string }>;
  hidden?: Array<{ name: string; value: string }>;
  links?: Array<{ href: string; label: string }>;
  /** Errors not tied to a field (shown in the summary only). */
  formErrors?: string[];
}

export function customersSite(deps: AreaDeps): SiteContribution {
  const { database } = deps;
  const db = database.db;
  const sessions = createCustomerSessions({ db });
  // Shared by every process on PostgreSQL (src/platform/limits/): N processes never give N budgets.
  const signInFailures = deps.limits.limiter('customer_password_guesses', { limit: SIGN_IN_FAILURES, windowMs: ATTEMPT_WINDOW_MS });
  const resetRequests = deps.limits.limiter('customer_password_resets', { limit: RESET_REQUESTS, windowMs: ATTEMPT_WINDOW_MS });
  /** Set-Cookie values the visitor check decided (renewed or cleared session), sent with the answer. */
  const visitorCookies = new WeakMap<FastifyRequest, string>();
  /** Answers whose page address holds a secret (the reset link's token). */
  const noReferrer = new WeakSet<FastifyRequest>();
  const service = (): ResourceService => deps.services[CUSTOMERS];

  // The tenant API's body validators of customers (JSON Schema from the declaration), compiled once.
  let validators: { create: ValidateFunction; update: ValidateFunction } | undefined;
  function validate(mode: 'create' | 'update', body: Record<string, unknown>): void {
    if (!validators) {
      const compile = createValidatorCompiler();
      const of = (m: 'create' | 'update') => compile({ schema: inputSchema(service().decl, m), httpPart: 'body', method: 'POST', url: '' } as never) as ValidateFunction;
      validators = { create: of('create'), update: of('update') };
    }
    const check = validators[mode];
    if (!check(body)) throw toApiError({ validation: check.errors, validationContext: 'body' } as never);
  }

  const sessionCookie = (request: FastifyRequest, value: string, maxAgeSeconds: number) =>
    fastifyCookie.serialize(SESSION_COOKIE, value, { httpOnly: true, secure: request.protocol === 'https', sameSite: 'lax', path: '/', maxAge: maxAgeSeconds });
  const clearedSession = (request: FastifyRequest) => sessionCookie(request, '', 0);

  function addCookie(reply: FastifyReply, cookie: string): void {
    const current = reply.getHeader('set-cookie');
    reply.header('set-cookie', [...(current === undefined ? [] : Array.isArray(current) ? current : [String(current)]), cookie]);
  }

  function sessionTokenOf(request: FastifyRequest): string | undefined {
    const header = request.headers.cookie;
    if (!header) return undefined;
    const value = fastifyCookie.parse(header)[SESSION_COOKIE];
    return value || undefined;
  }

  /**
   * The signed-in visitor: a read-only check of the session (renewed only once less than half its
   * lifetime is left); anything that is not a live session of this website is an anonymous visitor
   * whose cookie is cleared.
   */
  async function visitor(request: FastifyRequest, ctx: SiteContext): Promise<SiteVisitor | undefined> {
    const token = sessionTokenOf(request);
    if (token === undefined) return undefined;
    if (!TOKEN_SHAPE.test(token)) {
      visitorCookies.set(request, clearedSession(request));
      return undefined;
    }
    let session;
    try {
      session = await sessions.check(token, ctx.now);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      visitorCookies.set(request, clearedSession(request));
      return undefined;
    }
    // Another website's session (a cookie carried over by hand) is no session here.
    if (session.websiteId !== ctx.website.id) {
      visitorCookies.set(request, clearedSession(request));
      return undefined;
    }
    if (session.renewDue) {
      const renewed = await sessions.renew(token, ctx.now).catch(() => undefined);
      if (renewed) visitorCookies.set(request, sessionCookie(request, token, Math.floor((renewed.expireTime - ctx.now) / 1000)));
    }
    const groups = (await membershipsOf(db, [session.customerId])).get(session.customerId)!;
    return { customerId: session.customerId, displayName: session.displayName, email: session.email, groupIds: groups.all };
  }

  /** A context for the customers service: the website's account, called by "the site" (no user). */
  function serviceContext(request: FastifyRequest, ctx: SiteContext): RequestContext {
    return {
      requestId: request.id,
      caller: { userId: 'site-visitor' },
      now: Date.now(),
      access: { accountId: ctx.website.accountId, websiteId: ctx.website.id, role: 'site-visitor' },
    };
  }

  /** The view a form renders in: the one whose url_prefix `view` names, else the default view. */
  function viewOf(ctx: SiteContext, name: unknown): SiteView {
    return (typeof name === 'string' && name !== '' && ctx.views.find((v) => !v.isDefault && v.urlPrefix === name)) || ctx.defaultView;
  }
  const withView = (path: string, view: SiteView, extra = '') => {
    const params = [view.isDefault ? '' : `view=${encodeURIComponent(view.urlPrefix)}`, extra].filter(Boolean).join('&');
    return params ? `${path}?${params}` : path;
  };
  const homeOf = (view: SiteView) => (view.urlPrefix ? `/${view.urlPrefix}` : '/');

  /** Active attributes shown in registration (and the profile), in their order, labelled in the view's language. */
  async function formAttributes(websiteId: string, view: SiteView): Promise<FormAttribute[]> {
    const rows = await db
      .selectFrom('customer_attributes')
      .select(['key', 'display_name', 'labels', 'description', 'type', 'options', 'is_required', 'show_in_registration', 'is_active'])
      .where('website_id', '=', websiteId)
      .orderBy('sort_order')
      .orderBy('id')
      .execute();
    const truthy = (v: unknown) => v === true || v === 1;
    const language = view.locale.toLowerCase().split('-')[0];
    const labelIn = (labels: unknown, fallback: string) => {
      const map = database.dialect.readJson<Record<string, string> | null>(labels) ?? {};
      const entry = Object.entries(map).find(([locale]) => locale.toLowerCase() === view.locale.toLowerCase()) ?? Object.entries(map).find(([locale]) => locale.toLowerCase().split('-')[0] === language);
      return entry?.[1] || fallback;
    };
    return rows
      .filter((r) => truthy(r.is_active) && truthy(r.show_in_registration))
      .map((r) => ({
        key: r.key,
        label: labelIn(r.labels, r.display_name),
        hint: r.description ?? '',
        type: r.type as AttributeType,
        required: truthy(r.is_required),
        options: (database.dialect.readJson<Array<{ value: string; display_name: string; labels?: Record<string, string> }> | null>(r.options) ?? []).map((o) => ({
          value: o.value,
          label: labelIn(o.labels ?? null, o.display_name),
        })),
      }));
  }

  /** A form's value of one attribute, typed as the customers API takes it (absent: undefined). */
  function attributeInput(attribute: FormAttribute, form: Form): unknown {
    const raw = form[`attributes.${attribute.key}`];
    const first = Array.isArray(raw) ? raw[0] : raw;
    switch (attribute.type) {
      case 'MULTISELECT':
        return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      case 'BOOLEAN':
        return first === 'true' ? true : first === 'false' ? false : undefined;
      case 'NUMBER': {
        if (first === undefined || first.trim() === '') return undefined;
        const number = Number(first);
        // Not a number: passed on as text, so the API's check names the field ("must be a number").
        return Number.isFinite(number) ? number : first;
      }
      default:
        return first === undefined || first === '' ? undefined : first;
    }
  }

  /** The form fields of the attributes, with the entered (or stored) values and their errors. */
  function attributeFields(attributes: FormAttribute[], values: Record<string, unknown>, errors: Map<string, string>): FieldView[] {
    return attributes.map((a) => {
      const value = values[a.key];
      const name = `attributes.${a.key}`;
      const base = { name, id: `field-attributes-${a.key}`, label: a.label, required: a.required, hint: a.hint || undefined, error: errors.get(name) };
      switch (a.type) {
        case 'BOOLEAN':
          return field({ ...base, kind: 'radios', value: '', options: [{ value: 'true', label: 'Yes', checked: value === true }, { value: 'false', label: 'No', checked: value === false }] });
        case 'MULTISELECT': {
          const chosen = Array.isArray(value) ? value.map(String) : [];
          return field({ ...base, kind: 'checkboxes', value: '', options: a.options.map((o) => ({ ...o, checked: chosen.includes(o.value) })) });
        }
        case 'SELECT':
          return field({ ...base, kind: 'select', value: '', options: a.options.map((o) => ({ ...o, checked: value === o.value })) });
        case 'NUMBER':
          return field({ ...base, kind: 'number', step: 'any', value: value === undefined || value === null ? '' : String(value) });
        case 'DATE':
          return field({ ...base, kind: 'date', value: typeof value === 'string' ? value : '' });
        case 'TEXTAREA':
          return field({ ...base, kind: 'textarea', value: typeof value === 'string' ? value : '' });
        default:
          return field({ ...base, kind: 'text', value: typeof value === 'string' ? value : '' });
      }
    });
  }

  function field(f: Omit<FieldView, 'describedby'>): FieldView {
    const describedby = [f.hint ? `${f.id}-hint` : '', f.error ? `${f.id}-error` : ''].filter(Boolean).join(' ');
    return { ...f, describedby };
  }

  /** Where the error summary links to: the control, or a group's first control. */
  const hrefOf = (f: FieldView) => (f.kind === 'radios' || f.kind === 'checkboxes' ? `#${f.id}-1` : `#${f.id}`);

  async function sendPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, template: string, title: string, data: Record<string, unknown>, status = 200) {
    const html = await siteDeps().render(
      request,
      { kind: 'html', template, data, meta: { title, canonicalPath: request.url.split('?')[0], robots: 'NOINDEX_NOFOLLOW' }, shared: false },
      view,
    );
    return reply.code(status).type('text/html; charset=utf-8').header('cache-control', NO_STORE).header('vary', 'Cookie').send(html);
  }

  function sendForm(request: FastifyRequest, reply: FastifyReply, view: SiteView, page: FormPage, status = 200) {
    const errors = [
      ...(page.formErrors ?? []).map((text) => ({ text, href: '' })),
      ...page.fields.filter((f) => f.error).map((f) => ({ text: `${f.label}: ${f.error}`, href: hrefOf(f) })),
    ];
    return sendPage(request, reply, view, 'account/form', errors.length ? `Error: ${page.title}` : page.title, {
      heading: page.heading,
      intro: page.intro,
      notice: page.notice,
      details: page.details ?? [],
      errors,
      action: page.action,
      csrf: reply.generateCsrf({ secure: request.protocol === 'https', sameSite: 'lax', httpOnly: true, path: '/' }),
      view_prefix: view.urlPrefix,
      hidden: page.hidden ?? [],
      fields: page.fields,
      submit_label: page.submit,
      links: page.links ?? [],
    }, status);
  }

  const sendMessage = (request: FastifyRequest, reply: FastifyReply, view: SiteView, heading: string, message: string, status = 200, links: Array<{ href: string; label: string }> = []) =>
    sendPage(request, reply, view, 'account/message', heading, { heading, message, links }, status);

  const redirect = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).header('cache-control', NO_STORE).send();

  /** Field errors of a refused write, by form field name; violations of no form field go to the summary. */
  function errorsOf(err: unknown, rename: Record<string, string> = {}): { fields: Map<string, string>; other: string[] } {
    const apiError = err instanceof ApiError ? err : toApiError(err as never);
    const fields = new Map<string, string>();
    const other: string[] = [];
    const violations = apiError.details.filter((d): d is { type: 'FIELD_VIOLATION' } & FieldViolation => d.type === 'FIELD_VIOLATION');
    for (const v of violations) {
      const name = rename[v.field] ?? v.field;
      if (!fields.has(name)) fields.set(name, friendly(v.field, v.description));
    }
    if (violations.length === 0) other.push(apiError.message);
    return { fields, other };
  }

  /** Descriptions written for API clients, reworded where they would puzzle a visitor. */
  function friendly(fieldName: string, description: string): string {
    if (fieldName === 'email' && description.startsWith('must match pattern')) return 'Enter an email address like name@example.com';
    if (fieldName === 'email' && /already exists/.test(description)) return 'An account with this email address already exists. Sign in, or reset your password.';
    return description;
  }

  function formOf(request: FastifyRequest): Form {
    const body = request.body;
    const form: Form = {};
    if (!body || typeof body !== 'object' || Array.isArray(body)) return form;
    for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
      if (typeof value === 'string') form[key] = value;
      else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) form[key] = value as string[];
    }
    return form;
  }
  const text = (form: Form, name: string) => {
    const value = form[name];
    return typeof value === 'string' ? value : Array.isArray(value) ? (value[0] ?? '') : '';
  };
  const queryOf = (request: FastifyRequest) => (request.query ?? {}) as Record<string, unknown>;

  let boundSiteDeps: SiteDeps | undefined;
  const siteDeps = () => boundSiteDeps!;

  async function settingsOf(ctx: SiteContext, view: SiteView) {
    // Read fresh (not the per-version cache): a form must follow a settings change at once.
    const settings = await readSiteSettings(database, ctx.website.id, view.id);
    return {
      registrationEnabled: settings.get(SETTING_REGISTRATION) !== false,
      minLength: Math.max(8, Number(settings.get(SETTING_MIN_LENGTH) ?? 8) || 8),
      siteName: String(settings.get('general.site.name') || ctx.website.displayName),
    };
  }

  // ---------------------------------------------------------------- sign-up

  async function signUpPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, form: Form, errors: Map<string, string>, formErrors: string[], status = 200) {
    const ctx = siteDeps().siteOf(request);
    const attributes = await formAttributes(ctx.website.id, view);
    const { minLength } = await settingsOf(ctx, view);
    const entered: Record<string, unknown> = {};
    for (const a of attributes) entered[a.key] = attributeInput(a, form);
    return sendForm(request, reply, view, {
      heading: 'Create an account',
      title: 'Create an account',
      action: '/account/sign-up',
      submit: 'Create account',
      formErrors,
      fields: [
        field({ name: 'email', id: 'field-email', label: 'Email', kind: 'email', value: text(form, 'email'), required: true, autocomplete: 'email', error: errors.get('email') }),
        field({ name: 'password', id: 'field-password', label: 'Password', kind: 'password', value: '', required: true, autocomplete: 'new-password', hint: `At least ${minLength} characters, with a letter and a digit.`, error: errors.get('password') }),
        field({ name: 'display_name', id: 'field-display_name', label: 'Your name', kind: 'text', value: text(form, 'display_name'), required: false, autocomplete: 'name', error: errors.get('display_name') }),
        ...attributeFields(attributes, entered, errors),
      ],
      links: [{ href: withView('/account/sign-in', view), label: 'Already have an account? Sign in' }],
    }, status);
  }

  async function signUp(request: FastifyRequest, reply: FastifyReply) {
    const ctx = siteDeps().siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    const settings = await settingsOf(ctx, view);
    if (!settings.registrationEnabled) return registrationClosed(request, reply, view);
    const attributes = await formAttributes(ctx.website.id, view);
    const values: Record<string, unknown> = {};
    for (const a of attributes) {
      const value = attributeInput(a, form);
      if (value !== undefined && !(Array.isArray(value) && value.length === 0)) values[a.key] = value;
    }
    const body: Record<string, unknown> = { email: text(form, 'email'), password: text(form, 'password') };
    if (text(form, 'display_name').trim() !== '') body.display_name = text(form, 'display_name');
    if (Object.keys(values).length) body.attributes = values;

    const sctx = serviceContext(request, ctx);
    const customers = service();
    let created: Record<string, unknown>;
    try {
      const violations: FieldViolation[] = [];
      if (typeof body.password === 'string' && body.password.length < settings.minLength) violations.push({ field: 'password', description: `must be at least ${settings.minLength} characters` });
      try {
        validate('create', body);
      } catch (err) {
        if (!(err instanceof InvalidArgument)) throw err;
        violations.push(...(err.details as Array<FieldViolation & { type: string }>).map(({ field, description }) => ({ field, description })));
      }
      if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
      const input = { ...body };
      // The resource's own preparation (password policy, argon2id hash), then its Create in our transaction.
      await customers.decl.hooks?.prepare?.(sctx, input, Object.keys(input), 'create');
      const afterCommit: Array<() => void | Promise<void>> = [];
      created = await db.transaction().execute(async (trx) => {
        const resource = await customers.insert(sctx, { trx, afterCommit }, { website_id: ctx.website.id }, input);
        await enqueueWebsiteMail(trx, deps.mail, {
          websiteId: ctx.website.id,
          kind: 'customer_welcome',
          to: String(resource.email),
          values: { site_name: settings.siteName, site_url: ctx.origin, customer_name: String(resource.display_name ?? ''), customer_email: String(resource.email), account_url: `${ctx.origin}${withView('/account', view)}` },
        });
        return resource;
      });
      for (const fn of afterCommit) await fn();
      deps.mail.wake();
    } catch (err) {
      const refused = database.dialect.isUniqueViolation(err) ? new AlreadyExists('a customer with this email already exists on the website', 'email') : err;
      if (!(refused instanceof InvalidArgument || refused instanceof AlreadyExists)) throw refused;
      const { fields, other } = errorsOf(refused);
      return signUpPage(request, reply, view, form, fields, other, refused.httpCode);
    }
    const session = await sessions.create(ctx.website.id, String(created.id), Date.now());
    visitorCookies.delete(request);
    addCookie(reply, sessionCookie(request, session.token, Math.floor(CUSTOMER_SESSION_LIFETIME_MS / 1000)));
    return redirect(reply, withView('/account', view, 'welcome=1'));
  }

  const registrationClosed = (request: FastifyRequest, reply: FastifyReply, view: SiteView) =>
    sendMessage(request, reply, view, 'Registration is closed', 'This website does not accept new accounts at the moment.', 403, [{ href: withView('/account/sign-in', view), label: 'Sign in' }]);

  // ---------------------------------------------------------------- sign-in / sign-out

  function signInPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, email: string, formErrors: string[], status = 200, notice?: string) {
    return sendForm(request, reply, view, {
      heading: 'Sign in',
      title: 'Sign in',
      action: '/account/sign-in',
      submit: 'Sign in',
      notice,
      formErrors,
      fields: [
        field({ name: 'email', id: 'field-email', label: 'Email', kind: 'email', value: email, required: true, autocomplete: 'email' }),
        field({ name: 'password', id: 'field-password', label: 'Password', kind: 'password', value: '', required: true, autocomplete: 'current-password' }),
      ],
      links: [
        { href: withView('/account/password-reset', view), label: 'Forgot your password?' },
        { href: withView('/account/sign-up', view), label: 'Create an account' },
      ],
    }, status);
  }

  async function signIn(request: FastifyRequest, reply: FastifyReply) {
    const ctx = siteDeps().siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    const email = text(form, 'email').trim().toLowerCase();
    const password = text(form, 'password');
    const key = `${ctx.website.id}|${addressKey(request.ip)}|${email}`;
    const limited = await signInFailures.check(key);
    if (limited.limited) {
      reply.header('retry-after', String(limited.retryAfterSeconds));
      return signInPage(request, reply, view, email, [`Too many failed attempts. Try again in ${Math.ceil(limited.retryAfterSeconds / 60)} minutes.`], 429);
    }
    const customer = email
      ? await db.selectFrom('customers').select(['id', 'password_hash', 'is_active']).where('website_id', '=', ctx.website.id).where('email', '=', email).executeTakeFirst()
      : undefined;
    // Always one argon2id verification (a dummy hash without a customer): the answer time tells nothing.
    const ok = (await verifyPassword(customer?.password_hash ?? undefined, password)) && (customer?.is_active === true || customer?.is_active === 1);
    if (!customer || !ok) {
      await signInFailures.charge(key, 1);
      return signInPage(request, reply, view, email, ['The email or password is wrong.'], 400);
    }
    await signInFailures.reset(key);
    const session = await sessions.create(ctx.website.id, customer.id, Date.now());
    visitorCookies.delete(request);
    addCookie(reply, sessionCookie(request, session.token, Math.floor(CUSTOMER_SESSION_LIFETIME_MS / 1000)));
    return redirect(reply, withView('/account', view));
  }

  async function signOut(request: FastifyRequest, reply: FastifyReply) {
    const ctx = siteDeps().siteOf(request);
    const view = viewOf(ctx, formOf(request).view);
    const token = sessionTokenOf(request);
    if (token && TOKEN_SHAPE.test(token)) await sessions.revoke(token);
    visitorCookies.delete(request);
    addCookie(reply, clearedSession(request));
    return redirect(reply, homeOf(view));
  }

  // ---------------------------------------------------------------- profile and password

  const NOTICES: Record<string, string> = {
    welcome: 'Your account is ready.',
    profile: 'Your details were saved.',
    password: 'Your password was changed. Other devices were signed out.',
  };

  async function profilePage(request: FastifyRequest, reply: FastifyReply, view: SiteView, values: { display_name: string; attributes: Record<string, unknown> }, errors: Map<string, string>, formErrors: string[], status = 200, notice?: string) {
    const ctx = siteDeps().siteOf(request);
    const attributes = await formAttributes(ctx.website.id, view);
    return sendForm(request, reply, view, {
      heading: 'Your account',
      title: 'Your account',
      action: '/account',
      submit: 'Save',
      notice,
      formErrors,
      details: [{ label: 'Email', value: ctx.visitor!.email }],
      fields: [
        field({ name: 'display_name', id: 'field-display_name', label: 'Your name', kind: 'text', value: values.display_name, required: false, autocomplete: 'name', error: errors.get('display_name') }),
        ...attributeFields(attributes, values.attributes, errors),
      ],
      links: [
        { href: withView('/account/password', view), label: 'Change your password' },
        { href: withView('/account/sign-out', view), label: 'Sign out' },
      ],
    }, status);
  }

  async function storedCustomer(request: FastifyRequest, ctx: SiteContext) {
    return service().get(serviceContext(request, ctx), { website_id: ctx.website.id, customer_id: ctx.visitor!.customerId });
  }

  async function saveProfile(request: FastifyRequest, reply: FastifyReply) {
    const ctx = siteDeps().siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    if (!ctx.visitor) return redirect(reply, withView('/account/sign-in', view));
    const attributes = await formAttributes(ctx.website.id, view);
    const stored = await storedCustomer(request, ctx);
    // Attributes the form does not show keep their stored values (attributes are replaced whole).
    const merged: Record<string, unknown> = { ...((stored.attributes as Record<string, unknown> | undefined) ?? {}) };
    for (const a of attributes) {
      const value = attributeInput(a, form);
      if (value === undefined || (Array.isArray(value) && value.length === 0)) delete merged[a.key];
      else merged[a.key] = value;
    }
    const displayName = text(form, 'display_name');
    const body = { display_name: displayName.trim() === '' ? null : displayName, attributes: Object.keys(merged).length ? merged : null };
    try {
      validate('update', body);
      await service().update(serviceContext(request, ctx), { website_id: ctx.website.id, customer_id: ctx.visitor.customerId }, body, { updateMask: 'display_name,attributes' });
    } catch (err) {
      if (!(err instanceof InvalidArgument)) throw err;
      const { fields, other } = errorsOf(err);
      return profilePage(request, reply, view, { display_name: displayName, attributes: merged }, fields, other, 400);
    }
    return redirect(reply, withView('/account', view, 'saved=profile'));
  }

  function passwordPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, minLength: number, errors: Map<string, string>, formErrors: string[], status = 200) {
    return sendForm(request, reply, view, {
      heading: 'Change your password',
      title: 'Change your password',
      action: '/account/password',
      submit: 'Change password',
      intro: 'Other devices where you are signed in will be signed out.',
      formErrors,
      fields: [
        field({ name: 'current_password', id: 'field-current_password', label: 'Current password', kind: 'password', value: '', required: true, autocomplete: 'current-password', error: errors.get('current_password') }),
        field({ name: 'new_password', id: 'field-new_password', label: 'New password', kind: 'password', value: '', required: true, autocomplete: 'new-password', hint: `At least ${minLength} characters, with a letter and a digit.`, error: errors.get('new_password') }),
      ],
      links: [{ href: withView('/account', view), label: 'Back to your account' }],
    }, status);
  }

  async function changePassword(request: FastifyRequest, reply: FastifyReply) {
    const ctx = siteDeps().siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    if (!ctx.visitor) return redirect(reply, withView('/account/sign-in', view));
    const { minLength } = await settingsOf(ctx, view);
    const customerId = ctx.visitor.customerId;
    const key = `customer:${customerId}`;
    const limited = await signInFailures.check(key);
    if (limited.limited) {
      reply.header('retry-after', String(limited.retryAfterSeconds));
      return passwordPage(request, reply, view, minLength, new Map(), [`Too many wrong passwords. Try again in ${Math.ceil(limited.retryAfterSeconds / 60)} minutes.`], 429);
    }
    const row = await db.selectFrom('customers').select('password_hash').where('id', '=', customerId).where('website_id', '=', ctx.website.id).executeTakeFirst();
    if (!(await verifyPassword(row?.password_hash ?? undefined, text(form, 'current_password')))) {
      await signInFailures.charge(key, 1);
      return passwordPage(request, reply, view, minLength, new Map([['current_password', 'is not your current password']]), [], 400);
    }
    const next = text(form, 'new_password');
    try {
      if (next.length < minLength) throw InvalidArgument.field('password', `must be at least ${minLength} characters`);
      // The customers Update (password policy, hash, every session of the customer ends).
      await service().update(serviceContext(request, ctx), { website_id: ctx.website.id, customer_id: customerId }, { password: next }, { updateMask: 'password' });
    } catch (err) {
      if (!(err instanceof InvalidArgument)) throw err;
      const { fields, other } = errorsOf(err, { password: 'new_password' });
      return passwordPage(request, reply, view, minLength, fields, other, 400);
    }
    await signInFailures.reset(key);
    // This device stays signed in with a new session; every other one ended with the change.
    const session = await sessions.create(ctx.website.id, customerId, Date.now());
    visitorCookies.delete(request);
    addCookie(reply, sessionCookie(request, session.token, Math.floor(CUSTOMER_SESSION_LIFETIME_MS / 1000)));
    return redirect(reply, withView('/account', view, 'saved=password'));
  }

  // ---------------------------------------------------------------- password reset

  function resetRequestPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, email: string, formErrors: string[], status = 200, notice?: string) {
    return sendForm(request, reply, view, {
      heading: 'Reset your password',
      title: 'Reset your password',
      action: '/account/password-reset',
      submit: 'Send the link',
      intro: 'Enter the email address of your account. We will send you a link to choose a new password.',
      notice,
      formErrors,
      fields: [field({ name: 'email', id: 'field-email', label: 'Email', kind: 'email', value: email, required: true, autocomplete: 'email' })],
      links: [{ href: withView('/account/sign-in', view), label: 'Back to sign in' }],
    }, status);
  }

  async function requestReset(request: FastifyRequest, reply: FastifyReply) {
    const ctx = siteDeps().siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    const email = text(form, 'email').trim().toLowerCase();
    const state = await resetRequests.take(`${ctx.website.id}|${addressKey(request.ip)}|${email}`);
    if (state.limited) {
      reply.header('retry-after', String(state.retryAfterSeconds));
      return resetRequestPage(request, reply, view, email, [`Too many requests. Try again in ${Math.ceil(state.retryAfterSeconds / 60)} minutes.`], 429);
    }
    await settleNoSoonerThan(RESET_ANSWER_MS, async () => {
      const customer = email
        ? await db.selectFrom('customers').select(['id', 'email', 'display_name', 'is_active']).where('website_id', '=', ctx.website.id).where('email', '=', email).executeTakeFirst()
        : undefined;
      // An inactive customer cannot sign in: no link either (and the same answer).
      if (customer && (customer.is_active === true || customer.is_active === 1)) {
        const { siteName } = await settingsOf(ctx, view);
        const now = Date.now();
        await db.transaction().execute(async (trx) => {
          const token = await mintResetToken(trx, ctx.website.id, customer.id, now);
          await enqueueWebsiteMail(trx, deps.mail, {
            websiteId: ctx.website.id,
            kind: 'customer_password_reset',
            to: customer.email,
            values: {
              site_name: siteName,
              site_url: ctx.origin,
              customer_name: customer.display_name ?? '',
              customer_email: customer.email,
              reset_url: `${ctx.origin}${withView('/account/password-reset/confirm', view, `token=${encodeURIComponent(token)}`)}`,
              expire_hours: String(RESET_LIFETIME_MS / 3600_000),
            },
          });
        });
        deps.mail.wake();
      } else {
        tokenHash(randomToken());
      }
    });
    return resetRequestPage(request, reply, view, '', [], 200, 'If an account uses this address, we have sent it a link to choose a new password. The link works once, for an hour.');
  }

  /** A new reset token (its hash stored); the customer's earlier unused ones stop working. */
  async function mintResetToken(trx: Kysely<any>, websiteId: string, customerId: string, now: number): Promise<string> {
    await trx.deleteFrom('customer_tokens').where('customer_id', '=', customerId).where('purpose', '=', 'PASSWORD_RESET').execute();
    const token = randomToken();
    await trx
      .insertInto('customer_tokens')
      .values({ token_hash: tokenHash(token), website_id: websiteId, customer_id: customerId, purpose: 'PASSWORD_RESET', expire_time: now + RESET_LIFETIME_MS, use_time: null, create_time: now })
      .execute();
    return token;
  }

  /** The customer a reset token of this website is for, while it is unused and unexpired (read only). */
  async function liveResetToken(websiteId: string, token: string, now: number): Promise<string | undefined> {
    if (!token || token.length > 200) return undefined;
    const row = await db
      .selectFrom('customer_tokens')
      .select('customer_id')
      .where('token_hash', '=', tokenHash(token))
      .where('website_id', '=', websiteId)
      .where('purpose', '=', 'PASSWORD_RESET')
      .where('use_time', 'is', null)
      .where('expire_time', '>', now)
      .executeTakeFirst();
    return row?.customer_id;
  }

  const badLink = (request: FastifyRequest, reply: FastifyReply, view: SiteView) =>
    sendMessage(request, reply, view, 'This link does not work', 'The link is unknown, expired or was already used. Ask for a new one.', 400, [{ href: withView('/account/password-reset', view), label: 'Ask for a new link' }]);

  function resetConfirmPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, token: string, minLength: number, errors: Map<string, string>, formErrors: string[], status = 200) {
    // The page's address holds the token: no Referer carries it anywhere (set in onSend, after the core's policy).
    noReferrer.add(request);
    return sendForm(request, reply, view, {
      heading: 'Choose a new password',
      title: 'Choose a new password',
      action: '/account/password-reset/confirm',
      submit: 'Set the new password',
      intro: 'You will be signed out everywhere and can then sign in with the new password.',
      formErrors,
      hidden: [{ name: 'token', value: token }],
      fields: [
        field({ name: 'new_password', id: 'field-new_password', label: 'New password', kind: 'password', value: '', required: true, autocomplete: 'new-password', hint: `At least ${minLength} characters, with a letter and a digit.`, error: errors.get('new_password') }),
      ],
    }, status);
  }

  async function confirmReset(request: FastifyRequest, reply: FastifyReply) {
    const ctx = siteDeps().siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    const token = text(form, 'token');
    const { minLength } = await settingsOf(ctx, view);
    const customerId = await liveResetToken(ctx.website.id, token, Date.now());
    if (!customerId) return badLink(request, reply, view);
    const input: Record<string, unknown> = { password: text(form, 'new_password') };
    const sctx = serviceContext(request, ctx);
    try {
      if (String(input.password).length < minLength) throw InvalidArgument.field('password', `must be at least ${minLength} characters`);
      validate('update', input);
      // The resource's password policy and hash, then one transaction: claim the token (single use
      // even under concurrent posts: the UPDATE decides), set the hash, end every session.
      await service().decl.hooks?.prepare?.(sctx, input, ['password'], 'update');
      await service().mutate(sctx, { website_id: ctx.website.id, customer_id: customerId }, async (wctx, next) => {
        const claimed = await wctx.trx
          .updateTable('customer_tokens')
          .set({ use_time: wctx.now })
          .where('token_hash', '=', tokenHash(token))
          .where('customer_id', '=', customerId)
          .where('purpose', '=', 'PASSWORD_RESET')
          .where('use_time', 'is', null)
          .where('expire_time', '>', wctx.now)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1) throw new NotFound('reset token');
        next.password_hash = input.password;
        await sessions.revokeAll(wctx.trx, customerId);
      });
    } catch (err) {
      if (err instanceof NotFound) return badLink(request, reply, view);
      if (!(err instanceof InvalidArgument)) throw err;
      const { fields, other } = errorsOf(err, { password: 'new_password' });
      return resetConfirmPage(request, reply, view, token, minLength, fields, other, 400);
    }
    visitorCookies.delete(request);
    addCookie(reply, clearedSession(request));
    return redirect(reply, withView('/account/sign-in', view, 'reset=1'));
  }

  // ---------------------------------------------------------------- routes

  async function routes(site: FastifyInstance, bound: SiteDeps): Promise<void> {
    boundSiteDeps = bound;
    // Cookies the visitor check decided (a renewed session, a cleared bad one) go out with every
    // site answer, pages of other areas included.
    site.addHook('onSend', async (request, reply, payload) => {
      const cookie = visitorCookies.get(request);
      if (cookie) {
        visitorCookies.delete(request);
        addCookie(reply, cookie);
        reply.header('cache-control', NO_STORE);
      }
      return payload;
    });

    // Forms, cookies and CSRF inside this scope only: the tenant surface keeps its JSON-only bodies.
    await site.register(async (scope) => {
      await scope.register(formbody, { bodyLimit: 64 * 1024 });
      await scope.register(fastifyCookie);
      await scope.register(csrfProtection, { cookieKey: '_csrf', cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true } });

      // Every POST: a foreign Origin (another site, a sibling website under the platform domain) or a
      // missing or wrong CSRF token is refused with a 403 page before anything is read or written.
      scope.addHook('preHandler', (request, reply, done) => {
        if (request.method !== 'POST') return done();
        const origin = request.headers.origin;
        if (origin !== undefined && origin !== siteDeps().siteOf(request).origin) return done(forbidden());
        scope.csrfProtection(request, reply, done);
      });
      scope.addHook('onSend', async (request, reply, payload) => {
        if (noReferrer.has(request)) reply.header('referrer-policy', 'no-referrer');
        return payload;
      });
      scope.setErrorHandler(async (err, request, reply) => {
        const code = (err as { code?: string }).code ?? '';
        if (code.startsWith('FST_CSRF') || code === 'SITE_FOREIGN_ORIGIN') {
          const ctx = siteDeps().siteOf(request);
          return sendMessage(request, reply, viewOf(ctx, (request.query as Record<string, unknown> | undefined)?.view), 'This form has expired', 'The form could not be sent. Go back, reload the page and try again.', 403);
        }
        throw err;
      });

      const get = (url: string, handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>, logLevel?: 'warn') =>
        scope.route({ method: ['GET', 'HEAD'], url, handler, ...(logLevel ? { logLevel } : {}) });
      const post = (url: string, handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) => scope.post(url, handler);

      get('/account/sign-up', async (request, reply) => {
        const ctx = siteDeps().siteOf(request);
        const view = viewOf(ctx, queryOf(request).view);
        if (!(await settingsOf(ctx, view)).registrationEnabled) return registrationClosed(request, reply, view);
        return signUpPage(request, reply, view, {}, new Map(), []);
      });
      post('/account/sign-up', signUp);

      get('/account/sign-in', async (request, reply) => {
        const ctx = siteDeps().siteOf(request);
        const view = viewOf(ctx, queryOf(request).view);
        const notice = queryOf(request).reset === '1' ? 'Your password was changed. Sign in with the new password.' : undefined;
        return signInPage(request, reply, view, '', [], 200, notice);
      });
      post('/account/sign-in', signIn);

      get('/account/sign-out', async (request, reply) => {
        const ctx = siteDeps().siteOf(request);
        const view = viewOf(ctx, queryOf(request).view);
        if (!ctx.visitor) return redirect(reply, homeOf(view));
        return sendForm(request, reply, view, { heading: 'Sign out', title: 'Sign out', action: '/account/sign-out', submit: 'Sign out', intro: 'Sign out of your account on this device?', fields: [] });
      });
      post('/account/sign-out', signOut);

      get('/account', async (request, reply) => {
        const ctx = siteDeps().siteOf(request);
        const query = queryOf(request);
        const view = viewOf(ctx, query.view);
        if (!ctx.visitor) return redirect(reply, withView('/account/sign-in', view));
        const stored = await storedCustomer(request, ctx);
        const notice = query.welcome === '1' ? NOTICES.welcome : typeof query.saved === 'string' && Object.hasOwn(NOTICES, query.saved) ? NOTICES[query.saved] : undefined;
        return profilePage(request, reply, view, { display_name: String(stored.display_name ?? ''), attributes: (stored.attributes as Record<string, unknown> | undefined) ?? {} }, new Map(), [], 200, notice);
      });
      post('/account', saveProfile);

      get('/account/password', async (request, reply) => {
        const ctx = siteDeps().siteOf(request);
        const view = viewOf(ctx, queryOf(request).view);
        if (!ctx.visitor) return redirect(reply, withView('/account/sign-in', view));
        return passwordPage(request, reply, view, (await settingsOf(ctx, view)).minLength, new Map(), []);
      });
      post('/account/password', changePassword);

      get('/account/password-reset', async (request, reply) => resetRequestPage(request, reply, viewOf(siteDeps().siteOf(request), queryOf(request).view), '', []));
      post('/account/password-reset', requestReset);

      // The mailed link: its query holds the token, so this route logs at warn only (no request lines).
      get(
        '/account/password-reset/confirm',
        async (request, reply) => {
          const ctx = siteDeps().siteOf(request);
          const query = queryOf(request);
          const view = viewOf(ctx, query.view);
          const token = typeof query.token === 'string' ? query.token : '';
          if (!(await liveResetToken(ctx.website.id, token, Date.now()))) return badLink(request, reply, view);
          return resetConfirmPage(request, reply, view, token, (await settingsOf(ctx, view)).minLength, new Map(), []);
        },
        'warn',
      );
      post('/account/password-reset/confirm', confirmReset);
    });
  }

  return { templates: ACCOUNT_TEMPLATES, visitor, routes };
}

/** A POST from another origin: refused like a missing CSRF token. */
function forbidden(): Error {
  return Object.assign(new Error('the form was sent from another origin'), { code: 'SITE_FOREIGN_ORIGIN', statusCode: 403 });
}
