import type { FastifyReply, FastifyRequest } from 'fastify';
import { enqueueWebsiteMail } from '../../email-templates/index.js';
import { AlreadyExists, InvalidArgument, type FieldViolation } from '../../platform/errors.js';
import type { SiteView } from '../../platform/area.js';
import type { AccountContext } from './account-context.js';
import { redirect, viewOf, withView } from './account-pages.js';
import { attributeFields, attributeInput, errorsOf, field, formAttributes, formOf, queryOf, text, type Form } from './forms.js';

/**
 * `/account/sign-up`: a visitor creates a customer of the website (email, password, name and the
 * registration attributes) through the customers resource's own rules, gets the welcome mail and
 * is signed in.
 */
export function signUpFlow(c: AccountContext) {
  const { deps, pages } = c;
  const { database } = deps;

  async function signUpPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, form: Form, errors: Map<string, string>, formErrors: string[], status = 200) {
    const ctx = c.siteOf(request);
    const attributes = await formAttributes(database, ctx.website.id, view);
    const { minLength } = await c.settingsOf(ctx, view);
    const entered: Record<string, unknown> = {};
    for (const a of attributes) entered[a.key] = attributeInput(a, form);
    return pages.sendForm(request, reply, view, {
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

  const registrationClosed = (request: FastifyRequest, reply: FastifyReply, view: SiteView) =>
    pages.sendMessage(request, reply, view, 'Registration is closed', 'This website does not accept new accounts at the moment.', 403, [{ href: withView('/account/sign-in', view), label: 'Sign in' }]);

  async function show(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const view = viewOf(ctx, queryOf(request).view);
    if (!(await c.settingsOf(ctx, view)).registrationEnabled) return registrationClosed(request, reply, view);
    return signUpPage(request, reply, view, {}, new Map(), []);
  }

  async function submit(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    const settings = await c.settingsOf(ctx, view);
    if (!settings.registrationEnabled) return registrationClosed(request, reply, view);
    const attributes = await formAttributes(database, ctx.website.id, view);
    const values: Record<string, unknown> = {};
    for (const a of attributes) {
      const value = attributeInput(a, form);
      if (value !== undefined && !(Array.isArray(value) && value.length === 0)) values[a.key] = value;
    }
    const body: Record<string, unknown> = { email: text(form, 'email'), password: text(form, 'password') };
    if (text(form, 'display_name').trim() !== '') body.display_name = text(form, 'display_name');
    if (Object.keys(values).length) body.attributes = values;

    const sctx = c.serviceContext(request, ctx);
    const customers = c.customers();
    let created: Record<string, unknown>;
    try {
      const violations: FieldViolation[] = [];
      if (typeof body.password === 'string' && body.password.length < settings.minLength) violations.push({ field: 'password', description: `must be at least ${settings.minLength} characters` });
      try {
        c.validate('create', body);
      } catch (err) {
        if (!(err instanceof InvalidArgument)) throw err;
        violations.push(...(err.details as Array<FieldViolation & { type: string }>).map(({ field, description }) => ({ field, description })));
      }
      if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
      const input = { ...body };
      // The resource's own preparation (password policy, argon2id hash), then its Create in our transaction.
      await customers.decl.hooks?.prepare?.(sctx, input, Object.keys(input), 'create');
      const afterCommit: Array<() => void | Promise<void>> = [];
      created = await database.db.transaction().execute(async (trx) => {
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
    await c.session.start(request, reply, ctx.website.id, String(created.id));
    return redirect(reply, withView('/account', view, 'welcome=1'));
  }

  return { show, submit };
}
