import type { FastifyReply, FastifyRequest } from 'fastify';
import { enqueueWebsiteMail } from '../../email-templates/index.js';
import { randomToken, settleNoSoonerThan, tokenHash } from '../../platform/crypto.js';
import type { Db, Trx } from '../../platform/db/schema.js';
import { InvalidArgument, NotFound } from '../../platform/errors.js';
import { addressKey } from '../../platform/http/rate-limit.js';
import type { SiteView } from '../../platform/area.js';
import { claimResetToken, liveResetTokenCustomer, replaceResetToken } from '../customer-tokens.repo.js';
import { customerContactByEmail } from '../customers.repo.js';
import type { AccountContext } from './account-context.js';
import { redirect, viewOf, withView } from './account-pages.js';
import { errorsOf, field, formOf, queryOf, text } from './forms.js';

/** A mailed reset link works once, for this long. */
export const RESET_LIFETIME_MS = 3600_000;
/**
 * A reset request answers no earlier than this after it arrived, whether the address has an
 * account or not (the token and the mail hide inside the same answer time).
 */
const RESET_ANSWER_MS = 250;

/** A new reset token (its hash stored); the customer's earlier unused ones stop working. */
async function mintResetToken(trx: Db | Trx, websiteId: string, customerId: string, now: number): Promise<string> {
  const token = randomToken();
  await replaceResetToken(trx, { token_hash: tokenHash(token), website_id: websiteId, customer_id: customerId, expire_time: now + RESET_LIFETIME_MS, create_time: now });
  return token;
}

/** The customer a reset token of this website is for, while it is unused and unexpired (read only). */
async function liveResetToken(db: Db, websiteId: string, token: string, now: number): Promise<string | undefined> {
  if (!token || token.length > 200) return undefined;
  return liveResetTokenCustomer(db, websiteId, tokenHash(token), now);
}

/**
 * `/account/password-reset`: a visitor asks for a reset link by email (limited per website,
 * address and email; the same answer, in the same time, whether the address has an account), and
 * `/account/password-reset/confirm` sets a new password with the mailed single-use token, ending
 * every session of the customer.
 */
export function passwordResetFlow(c: AccountContext) {
  const { deps, pages } = c;
  const db = deps.database.db;

  function resetRequestPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, email: string, formErrors: string[], status = 200, notice?: string) {
    return pages.sendForm(request, reply, view, {
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

  async function showRequest(request: FastifyRequest, reply: FastifyReply) {
    return resetRequestPage(request, reply, viewOf(c.siteOf(request), queryOf(request).view), '', []);
  }

  async function requestReset(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    const email = text(form, 'email').trim().toLowerCase();
    const state = await c.resetRequests.take(`${ctx.website.id}|${addressKey(request.ip)}|${email}`);
    if (state.limited) {
      reply.header('retry-after', String(state.retryAfterSeconds));
      return resetRequestPage(request, reply, view, email, [`Too many requests. Try again in ${Math.ceil(state.retryAfterSeconds / 60)} minutes.`], 429);
    }
    await settleNoSoonerThan(RESET_ANSWER_MS, async () => {
      const customer = email ? await customerContactByEmail(db, ctx.website.id, email) : undefined;
      // An inactive customer cannot sign in: no link either (and the same answer).
      if (customer && (customer.is_active === true || customer.is_active === 1)) {
        const { siteName } = await c.settingsOf(ctx, view);
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

  const badLink = (request: FastifyRequest, reply: FastifyReply, view: SiteView) =>
    pages.sendMessage(request, reply, view, 'This link does not work', 'The link is unknown, expired or was already used. Ask for a new one.', 400, [{ href: withView('/account/password-reset', view), label: 'Ask for a new link' }]);

  function resetConfirmPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, token: string, minLength: number, errors: Map<string, string>, formErrors: string[], status = 200) {
    // The page's address holds the token: no Referer carries it anywhere (set in onSend, after the core's policy).
    pages.hideReferrer(request);
    return pages.sendForm(request, reply, view, {
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

  async function showConfirm(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const query = queryOf(request);
    const view = viewOf(ctx, query.view);
    const token = typeof query.token === 'string' ? query.token : '';
    if (!(await liveResetToken(db, ctx.website.id, token, Date.now()))) return badLink(request, reply, view);
    return resetConfirmPage(request, reply, view, token, (await c.settingsOf(ctx, view)).minLength, new Map(), []);
  }

  async function confirmReset(request: FastifyRequest, reply: FastifyReply) {
    const ctx = c.siteOf(request);
    const form = formOf(request);
    const view = viewOf(ctx, form.view);
    const token = text(form, 'token');
    const { minLength } = await c.settingsOf(ctx, view);
    const customerId = await liveResetToken(db, ctx.website.id, token, Date.now());
    if (!customerId) return badLink(request, reply, view);
    const input: Record<string, unknown> = { password: text(form, 'new_password') };
    const sctx = c.serviceContext(request, ctx);
    const customers = c.customers();
    try {
      if (String(input.password).length < minLength) throw InvalidArgument.field('password', `must be at least ${minLength} characters`);
      c.validate('update', input);
      // The resource's password policy and hash, then one transaction: claim the token (single use
      // even under concurrent posts: the UPDATE decides), set the hash, end every session.
      await customers.decl.hooks?.prepare?.(sctx, input, ['password'], 'update');
      await customers.mutate(sctx, { website_id: ctx.website.id, customer_id: customerId }, async (wctx, next) => {
        if (!(await claimResetToken(wctx.trx, tokenHash(token), customerId, wctx.now))) throw new NotFound('reset token');
        next.password_hash = input.password;
        await c.sessions.revokeAll(wctx.trx, customerId);
      });
    } catch (err) {
      if (err instanceof NotFound) return badLink(request, reply, view);
      if (!(err instanceof InvalidArgument)) throw err;
      const { fields, other } = errorsOf(err, { password: 'new_password' });
      return resetConfirmPage(request, reply, view, token, minLength, fields, other, 400);
    }
    c.session.clear(request, reply);
    return redirect(reply, withView('/account/sign-in', view, 'reset=1'));
  }

  return { showRequest, requestReset, showConfirm, confirmReset };
}
