import type { FastifyReply, FastifyRequest } from 'fastify';
import { InvalidArgument } from '../../platform/errors.js';
import type { SiteContext, SiteView } from '../../platform/area.js';
import type { AccountContext } from './account-context.js';
import { redirect, viewOf, withView } from './account-pages.js';
import { attributeFields, attributeInput, errorsOf, field, formAttributes, formOf, queryOf, text } from './forms.js';

/** What `/account` says after a redirect (`?welcome=1`, `?saved=…`). */
const NOTICES: Record<string, string> = {
  welcome: 'Your account is ready.',
  profile: 'Your details were saved.',
  password: 'Your password was changed. Other devices were signed out.',
};

/**
 * `/account`: the signed-in customer sees their email and changes their name and the attributes
 * the forms show, through the customers Update.
 */
export function profileFlow(c: AccountContext) {
  const { deps, pages } = c;

  async function profilePage(request: FastifyRequest, reply: FastifyReply, view: SiteView, values: { display_name: string; attributes: Record<string, unknown> }, errors: Map<string, string>, formErrors: string[], status = 200, notice?: string) {
    const ctx = c.siteOf(request);
    const attributes = await formAttributes(deps.database, ctx.website.id, view);
    return pages.sendForm(request, reply, view, {
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
    return c.customers().get(c.serviceContext(request, ctx), { website_id: ctx.website.id, customer_id: ctx.visitor!.customerId });
  }

  async function show(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const query = queryOf(request);
    const view = viewOf(ctx, query.view);
    if (!ctx.visitor) return redirect(reply, withView('/account/sign-in', view));
    const stored = await storedCustomer(request, ctx);
    const notice = query.welcome === '1' ? NOTICES.welcome : typeof query.saved === 'string' && Object.hasOwn(NOTICES, query.saved) ? NOTICES[query.saved] : undefined;
    return profilePage(request, reply, view, { display_name: String(stored.display_name ?? ''), attributes: (stored.attributes as Record<string, unknown> | undefined) ?? {} }, new Map(), [], 200, notice);
  }

  async function save(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    if (!ctx.visitor) return redirect(reply, withView('/account/sign-in', view));
    const attributes = await formAttributes(deps.database, ctx.website.id, view);
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
      c.validate('update', body);
      await c.customers().update(c.serviceContext(request, ctx), { website_id: ctx.website.id, customer_id: ctx.visitor.customerId }, body, { updateMask: 'display_name,attributes' });
    } catch (err) {
      if (!(err instanceof InvalidArgument)) throw err;
      const { fields, other } = errorsOf(err);
      return profilePage(request, reply, view, { display_name: displayName, attributes: merged }, fields, other, 400);
    }
    return redirect(reply, withView('/account', view, 'saved=profile'));
  }

  return { show, save };
}
