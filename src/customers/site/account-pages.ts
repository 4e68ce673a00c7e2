import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SiteContext, SiteDeps, SiteView } from '../../platform/area.js';
import { hrefOf, type FormPage } from './forms.js';
import { NO_STORE } from './visitor-session.js';

/**
 * How the account pages answer: rendered through the site's templates in the visitor's view,
 * never cached, never indexed; redirects between them keep the view.
 */

/** The view a form renders in: the one whose url_prefix `view` names, else the default view. */
export function viewOf(ctx: SiteContext, name: unknown): SiteView {
  return (typeof name === 'string' && name !== '' && ctx.views.find((v) => !v.isDefault && v.urlPrefix === name)) || ctx.defaultView;
}

/** An account address in the view (its `view` query parameter), with more parameters when given. */
export const withView = (path: string, view: SiteView, extra = '') => {
  const params = [view.isDefault ? '' : `view=${encodeURIComponent(view.urlPrefix)}`, extra].filter(Boolean).join('&');
  return params ? `${path}?${params}` : path;
};

/** The view's home page. */
export const homeOf = (view: SiteView) => (view.urlPrefix ? `/${view.urlPrefix}` : '/');

/** A 303 to `location`, not stored. */
export const redirect = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).header('cache-control', NO_STORE).send();

/** Renders account pages with the site's templates (bound once the site's routes register). */
export interface AccountPages {
  sendPage(request: FastifyRequest, reply: FastifyReply, view: SiteView, template: string, title: string, data: Record<string, unknown>, status?: number): Promise<FastifyReply>;
  sendForm(request: FastifyRequest, reply: FastifyReply, view: SiteView, page: FormPage, status?: number): Promise<FastifyReply>;
  sendMessage(request: FastifyRequest, reply: FastifyReply, view: SiteView, heading: string, message: string, status?: number, links?: Array<{ href: string; label: string }>): Promise<FastifyReply>;
  /** The answer's page address holds a secret (the reset link's token): no Referer may carry it. */
  hideReferrer(request: FastifyRequest): void;
  /** Whether `hideReferrer` was called for the request. */
  referrerHidden(request: FastifyRequest): boolean;
}

export function createAccountPages(siteDeps: () => SiteDeps): AccountPages {
  /** Answers whose page address holds a secret (the reset link's token). */
  const noReferrer = new WeakSet<FastifyRequest>();

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

  return {
    sendPage,
    sendForm,
    sendMessage,
    hideReferrer: (request) => void noReferrer.add(request),
    referrerHidden: (request) => noReferrer.has(request),
  };
}
