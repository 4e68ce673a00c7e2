import { fastifyCookie } from '@fastify/cookie';
import csrfProtection from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AreaDeps, SiteContribution, SiteDeps } from '../platform/area.js';
import { createCustomerSessions } from './customer-sessions.service.js';
import { ACCOUNT_TEMPLATES } from './customers.templates.js';
import { createAccountContext } from './site/account-context.js';
import { viewOf } from './site/account-pages.js';
import { queryOf } from './site/forms.js';
import { passwordChangeFlow } from './site/password-change.js';
import { passwordResetFlow } from './site/password-reset.js';
import { profileFlow } from './site/profile.js';
import { signInFlow } from './site/sign-in.js';
import { signUpFlow } from './site/sign-up.js';

/**
 * Visitors as customers on the rendered websites (issue 15; docs/decisions.md, "Rendered websites:
 * visitors as customers"): sign-up, sign-in, sign-out, profile, password change and reset, as root
 * routes of the site surface, and the signed-in visitor of every site request.
 *
 * Customers are created and changed through the customers resource service (its JSON Schema and
 * hooks: the same rules as the tenant API); sessions through the customer session service. This
 * file wires the pieces in `site/`: the form kit (`forms.ts`), the session cookie
 * (`visitor-session.ts`), the pages (`account-pages.ts`), what the flows share
 * (`account-context.ts`) and one file per flow.
 */
export function customersSite(deps: AreaDeps): SiteContribution {
  const sessions = createCustomerSessions({ db: deps.database.db });
  const { context: c, bind } = createAccountContext(deps, sessions);
  const { pages, session } = c;
  const signUp = signUpFlow(c);
  const signIn = signInFlow(c);
  const profile = profileFlow(c);
  const password = passwordChangeFlow(c);
  const reset = passwordResetFlow(c);

  async function routes(site: FastifyInstance, bound: SiteDeps): Promise<void> {
    bind(bound);
    // Cookies the visitor check decided (a renewed session, a cleared bad one) go out with every
    // site answer, pages of other areas included.
    site.addHook('onSend', async (request, reply, payload) => {
      session.flush(request, reply);
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
        if (origin !== undefined && origin !== c.siteOf(request).origin) return done(forbidden());
        scope.csrfProtection(request, reply, done);
      });
      scope.addHook('onSend', async (request, reply, payload) => {
        if (pages.referrerHidden(request)) reply.header('referrer-policy', 'no-referrer');
        return payload;
      });
      scope.setErrorHandler(async (err, request, reply) => {
        const code = (err as { code?: string }).code ?? '';
        if (code.startsWith('FST_CSRF') || code === 'SITE_FOREIGN_ORIGIN') {
          const ctx = c.siteOf(request);
          return pages.sendMessage(request, reply, viewOf(ctx, queryOf(request).view), 'This form has expired', 'The form could not be sent. Go back, reload the page and try again.', 403);
        }
        throw err;
      });

      const get = (url: string, handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>, logLevel?: 'warn') =>
        scope.route({ method: ['GET', 'HEAD'], url, handler, ...(logLevel ? { logLevel } : {}) });
      const post = (url: string, handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) => scope.post(url, handler);

      get('/account/sign-up', signUp.show);
      post('/account/sign-up', signUp.submit);
      get('/account/sign-in', signIn.showSignIn);
      post('/account/sign-in', signIn.signIn);
      get('/account/sign-out', signIn.showSignOut);
      post('/account/sign-out', signIn.signOut);
      get('/account', profile.show);
      post('/account', profile.save);
      get('/account/password', password.show);
      post('/account/password', password.change);
      get('/account/password-reset', reset.showRequest);
      post('/account/password-reset', reset.requestReset);
      // The mailed link: its query holds the token, so this route logs at warn only (no request lines).
      get('/account/password-reset/confirm', reset.showConfirm, 'warn');
      post('/account/password-reset/confirm', reset.confirmReset);
    });
  }

  return { templates: ACCOUNT_TEMPLATES, visitor: session.visitor, routes };
}

/** A POST from another origin: refused like a missing CSRF token. */
function forbidden(): Error {
  return Object.assign(new Error('the form was sent from another origin'), { code: 'SITE_FOREIGN_ORIGIN', statusCode: 403 });
}
