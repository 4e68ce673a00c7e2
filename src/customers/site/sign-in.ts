import type { FastifyReply, FastifyRequest } from 'fastify';
import { verifyPassword } from '../../platform/auth/passwords.js';
import { addressKey } from '../../platform/http/rate-limit.js';
import type { SiteView } from '../../platform/area.js';
import { customerCredentialsByEmail } from '../customers.repo.js';
import type { AccountContext } from './account-context.js';
import { homeOf, redirect, viewOf, withView } from './account-pages.js';
import { field, formOf, queryOf, text } from './forms.js';

/**
 * `/account/sign-in` and `/account/sign-out`: a customer signs in with email and password (wrong
 * guesses limited per website, address and email) and out on this device.
 */
export function signInFlow(c: AccountContext) {
  const { deps, pages } = c;

  function signInPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, email: string, formErrors: string[], status = 200, notice?: string) {
    return pages.sendForm(request, reply, view, {
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

  async function showSignIn(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const view = viewOf(ctx, queryOf(request).view);
    const notice = queryOf(request).reset === '1' ? 'Your password was changed. Sign in with the new password.' : undefined;
    return signInPage(request, reply, view, '', [], 200, notice);
  }

  async function signIn(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    const email = text(form, 'email').trim().toLowerCase();
    const password = text(form, 'password');
    const key = `${ctx.website.id}|${addressKey(request.ip)}|${email}`;
    const limited = await c.signInFailures.check(key);
    if (limited.limited) {
      reply.header('retry-after', String(limited.retryAfterSeconds));
      return signInPage(request, reply, view, email, [`Too many failed attempts. Try again in ${Math.ceil(limited.retryAfterSeconds / 60)} minutes.`], 429);
    }
    const customer = email ? await customerCredentialsByEmail(deps.database.db, ctx.website.id, email) : undefined;
    // Always one argon2id verification (a dummy hash without a customer): the answer time tells nothing.
    const ok = (await verifyPassword(customer?.password_hash ?? undefined, password)) && (customer?.is_active === true || customer?.is_active === 1);
    if (!customer || !ok) {
      await c.signInFailures.charge(key, 1);
      return signInPage(request, reply, view, email, ['The email or password is wrong.'], 400);
    }
    await c.signInFailures.reset(key);
    await c.session.start(request, reply, ctx.website.id, customer.id);
    return redirect(reply, withView('/account', view));
  }

  async function showSignOut(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const view = viewOf(ctx, queryOf(request).view);
    if (!ctx.visitor) return redirect(reply, homeOf(view));
    return pages.sendForm(request, reply, view, { heading: 'Sign out', title: 'Sign out', action: '/account/sign-out', submit: 'Sign out', intro: 'Sign out of your account on this device?', fields: [] });
  }

  async function signOut(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const view = viewOf(ctx, formOf(request).view);
    await c.session.end(request, reply);
    return redirect(reply, homeOf(view));
  }

  return { showSignIn, signIn, showSignOut, signOut };
}
