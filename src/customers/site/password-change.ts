import type { FastifyReply, FastifyRequest } from 'fastify';
import { verifyPassword } from '../../platform/auth/passwords.js';
import { InvalidArgument } from '../../platform/errors.js';
import type { SiteView } from '../../platform/area.js';
import { passwordHashOf } from '../customers.repo.js';
import type { AccountContext } from './account-context.js';
import { redirect, viewOf, withView } from './account-pages.js';
import { errorsOf, field, formOf, queryOf, text } from './forms.js';

/**
 * `/account/password`: the signed-in customer changes their password with the current one (wrong
 * guesses limited per customer); every other session ends, this device gets a new one.
 */
export function passwordChangeFlow(c: AccountContext) {
  const { deps, pages } = c;

  function passwordPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, minLength: number, errors: Map<string, string>, formErrors: string[], status = 200) {
    return pages.sendForm(request, reply, view, {
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

  async function show(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const view = viewOf(ctx, queryOf(request).view);
    if (!ctx.visitor) return redirect(reply, withView('/account/sign-in', view));
    return passwordPage(request, reply, view, (await c.settingsOf(ctx, view)).minLength, new Map(), []);
  }

  async function change(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    if (!ctx.visitor) return redirect(reply, withView('/account/sign-in', view));
    const { minLength } = await c.settingsOf(ctx, view);
    const customerId = ctx.visitor.customerId;
    const key = `customer:${customerId}`;
    const limited = await c.signInFailures.check(key);
    if (limited.limited) {
      reply.header('retry-after', String(limited.retryAfterSeconds));
      return passwordPage(request, reply, view, minLength, new Map(), [`Too many wrong passwords. Try again in ${Math.ceil(limited.retryAfterSeconds / 60)} minutes.`], 429);
    }
    const passwordHash = await passwordHashOf(deps.database.db, ctx.website.id, customerId);
    if (!(await verifyPassword(passwordHash, text(form, 'current_password')))) {
      await c.signInFailures.charge(key, 1);
      return passwordPage(request, reply, view, minLength, new Map([['current_password', 'is not your current password']]), [], 400);
    }
    const next = text(form, 'new_password');
    try {
      if (next.length < minLength) throw InvalidArgument.field('password', `must be at least ${minLength} characters`);
      // The customers Update (password policy, hash, every session of the customer ends).
      await c.customers().update(c.serviceContext(request, ctx), { website_id: ctx.website.id, customer_id: customerId }, { password: next }, { updateMask: 'password' });
    } catch (err) {
      if (!(err instanceof InvalidArgument)) throw err;
      const { fields, other } = errorsOf(err, { password: 'new_password' });
      return passwordPage(request, reply, view, minLength, fields, other, 400);
    }
    await c.signInFailures.reset(key);
    // This device stays signed in with a new session; every other one ended with the change.
    await c.session.start(request, reply, ctx.website.id, customerId);
    return redirect(reply, withView('/account', view, 'saved=password'));
  }

  return { show, change };
}
