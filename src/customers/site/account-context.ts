import type { ValidateFunction } from 'ajv';
import type { FastifyRequest } from 'fastify';
import type { AreaDeps, SiteContext, SiteDeps, SiteView } from '../../platform/area.js';
import type { RequestContext } from '../../platform/auth/context.js';
import { InvalidArgument } from '../../platform/errors.js';
import { violationsOf } from '../../platform/http/errors.js';
import { createValidatorCompiler } from '../../platform/http/validation.js';
import type { Limiter } from '../../platform/limits/limits.js';
import type { ResourceService } from '../../platform/resource/engine.js';
import { inputSchema } from '../../platform/resource/schemas.js';
import { readSiteSettings } from '../../settings/index.js';
import type { CustomerSessions } from '../customer-sessions.service.js';
import { createAccountPages, type AccountPages } from './account-pages.js';
import { createVisitorSession, type VisitorSession } from './visitor-session.js';

/**
 * What every account flow of the site uses: the customers resource service called as "the site"
 * with the tenant API's body validators, the settings the forms follow, the shared limits, the
 * pages and the visitor's session.
 */

/** Failed sign-ins per website, client address and email in a window (then 429 until it ends). */
export const SIGN_IN_FAILURES = 10;
/** Password reset requests per website, client address and email in a window. */
export const RESET_REQUESTS = 3;
export const ATTEMPT_WINDOW_MS = 15 * 60_000;

const SETTING_REGISTRATION = 'customer.account.registration_enabled';
const SETTING_MIN_LENGTH = 'customer.password.min_length';
const CUSTOMERS = 'websites/{website_id}/customers';

/** The settings an account form follows. */
export interface AccountSettings {
  registrationEnabled: boolean;
  minLength: number;
  siteName: string;
}

export interface AccountContext {
  deps: AreaDeps;
  pages: AccountPages;
  session: VisitorSession;
  /** The customer session store (`revokeAll` inside a write's transaction). */
  sessions: CustomerSessions;
  /** Wrong passwords (sign-in by address and email, password change by customer). */
  signInFailures: Limiter;
  resetRequests: Limiter;
  /** The site's request context (bound once the site's routes register). */
  siteOf(request: FastifyRequest): SiteContext;
  customers(): ResourceService;
  /** The tenant API's body check of customers (JSON Schema from the declaration); INVALID_ARGUMENT naming the field. */
  validate(mode: 'create' | 'update', body: Record<string, unknown>): void;
  /** A context for the customers service: the website's account, called by "the site" (no user). */
  serviceContext(request: FastifyRequest, ctx: SiteContext): RequestContext;
  /** Read fresh (not the per-version cache): a form must follow a settings change at once. */
  settingsOf(ctx: SiteContext, view: SiteView): Promise<AccountSettings>;
}

export function createAccountContext(deps: AreaDeps, sessions: CustomerSessions): { context: AccountContext; bind(site: SiteDeps): void } {
  const { database } = deps;
  let boundSiteDeps: SiteDeps | undefined;
  const siteDeps = () => boundSiteDeps!;
  const customers = (): ResourceService => deps.services[CUSTOMERS];

  // The tenant API's body validators of customers (JSON Schema from the declaration), compiled once.
  let validators: { create: ValidateFunction; update: ValidateFunction } | undefined;

  const context: AccountContext = {
    deps,
    pages: createAccountPages(siteDeps),
    session: createVisitorSession({ db: database.db, sessions }),
    sessions,
    // Shared by every process on PostgreSQL (src/platform/limits/): N processes never give N budgets.
    signInFailures: deps.limits.limiter('customer_password_guesses', { limit: SIGN_IN_FAILURES, windowMs: ATTEMPT_WINDOW_MS }),
    resetRequests: deps.limits.limiter('customer_password_resets', { limit: RESET_REQUESTS, windowMs: ATTEMPT_WINDOW_MS }),
    siteOf: (request) => siteDeps().siteOf(request),
    customers,

    validate(mode, body) {
      if (!validators) {
        const compile = createValidatorCompiler();
        const of = (m: 'create' | 'update') => compile({ schema: inputSchema(customers().decl, m), httpPart: 'body', method: 'POST', url: '' }) as ValidateFunction;
        validators = { create: of('create'), update: of('update') };
      }
      const check = validators[mode];
      if (check(body)) return;
      // As the tenant API answers a body its schema refuses (platform/http/errors.ts, toApiError).
      const violations = violationsOf(check.errors ?? [], 'body');
      throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
    },

    serviceContext(request, ctx) {
      return {
        requestId: request.id,
        caller: { userId: 'site-visitor' },
        now: Date.now(),
        access: { accountId: ctx.website.accountId, websiteId: ctx.website.id, role: 'site-visitor' },
      };
    },

    async settingsOf(ctx, view) {
      const settings = await readSiteSettings(database, ctx.website.id, view.id);
      return {
        registrationEnabled: settings.get(SETTING_REGISTRATION) !== false,
        minLength: Math.max(8, Number(settings.get(SETTING_MIN_LENGTH) ?? 8) || 8),
        siteName: String(settings.get('general.site.name') || ctx.website.displayName),
      };
    },
  };
  return { context, bind: (site) => void (boundSiteDeps = site) };
}
