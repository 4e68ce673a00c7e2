import { API_PREFIX } from '../lib/openapi-model/model.js';
import type { ApiModel, ResourceModel } from '../lib/openapi-model/types.js';

/**
 * Where every generated screen lives. Two contexts frame them: a website (`/w/{website}/g/…`) and
 * an account (`/a/{account}/g/…`, which also holds the account's projects and websites, the
 * platform catalogue and the caller's own records). Below `g/` the URL repeats the API's resource
 * name, so a screen's link reads like the resource it shows:
 *
 *   /w/W/g/blog_posts                 the List
 *   /w/W/g/blog_posts:create          the Create form
 *   /w/W/g/blog_posts/P               the detail (Get; Delete; the item's custom methods)
 *   /w/W/g/blog_posts/P:edit          the Update form
 *   /w/W/g/blog_posts/P:publish       a custom method's form (or confirmation)
 *   /w/W/g/blog_posts/P/views         a nested collection
 *   /w/W/g/dashboard                  a singleton, shown as its form
 */
export type Context = { kind: 'website'; websiteId: string } | { kind: 'account'; accountId: string };

/** Prefix of a context's screens. */
export const contextBase = (ctx: Context): string => (ctx.kind === 'website' ? `/w/${encodeURIComponent(ctx.websiteId)}/g` : `/a/${encodeURIComponent(ctx.accountId)}/g`);

const WEBSITE_ROOT = 'websites/{website_id}/';
const ACCOUNT_ROOT = 'accounts/{account_id}/';

/** The context a resource's screens live in, and its key below that context. */
export function placement(resource: ResourceModel): { context: Context['kind']; pattern: string } {
  if (resource.key.startsWith(WEBSITE_ROOT)) return { context: 'website', pattern: resource.key.slice(WEBSITE_ROOT.length) };
  if (resource.key.startsWith(ACCOUNT_ROOT)) return { context: 'account', pattern: resource.key.slice(ACCOUNT_ROOT.length) };
  return { context: 'account', pattern: resource.key };
}

/** Action of a screen: none (the List, the detail or the singleton), `create`, `edit`, or a custom method's name. */
export type ScreenAction = undefined | 'create' | 'edit' | string;

/** What a URL below `r/` shows. */
export interface Screen {
  resource: ResourceModel;
  /** Values of the resource's path params (the context's id included). */
  params: Record<string, string>;
  /** The item shown, for a collection's detail and its item actions. */
  itemId?: string;
  action?: ScreenAction;
}

/** The path below `r/` of a screen (ids filled in; `params` must hold every param of the pattern but the context's). */
export function screenPath(resource: ResourceModel, params: Record<string, string>, opts: { itemId?: string; action?: ScreenAction } = {}): string {
  const { pattern } = placement(resource);
  let path = pattern.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`screenPath: ${resource.key} needs ${name}`);
    return encodeURIComponent(value);
  });
  if (opts.itemId !== undefined) path += `/${encodeURIComponent(opts.itemId)}`;
  if (opts.action) path += `:${opts.action}`;
  return path;
}

/** The full href of a screen in its context. */
export function screenHref(ctx: Context, resource: ResourceModel, params: Record<string, string>, opts: { itemId?: string; action?: ScreenAction } = {}): string {
  return `${contextBase(ctx)}/${screenPath(resource, params, opts)}`;
}

/** Reads a path below `r/` back into the screen it names; undefined when no resource matches. */
export function resolveScreen(model: ApiModel, ctx: Context, splat: string): Screen | undefined {
  // The router may hand the splat over with `:` still percent-encoded.
  const raw = splat.replace(/%3A/gi, ':').replace(/^\/+|\/+$/g, '');
  const colon = raw.lastIndexOf(':');
  const lastSlash = raw.lastIndexOf('/');
  const action = colon > lastSlash ? raw.slice(colon + 1) : undefined;
  const path = action === undefined ? raw : raw.slice(0, colon);
  const segments = path.split('/').map((s) => decodeURIComponent(s));
  const contextParams: Record<string, string> = ctx.kind === 'website' ? { website_id: ctx.websiteId } : { account_id: ctx.accountId };
  for (const resource of model.resources) {
    const { context, pattern } = placement(resource);
    if (context !== ctx.kind) continue;
    const parts = pattern.split('/');
    const asItem = resource.kind === 'collection' && segments.length === parts.length + 1;
    if (segments.length !== parts.length && !asItem) continue;
    const params: Record<string, string> = { ...contextParams };
    let ok = true;
    parts.forEach((part, i) => {
      const param = /^\{([^}]+)\}$/.exec(part);
      if (param) params[param[1]!] = segments[i]!;
      else if (part !== segments[i]) ok = false;
    });
    if (!ok) continue;
    const screen: Screen = { resource, params, ...(action !== undefined && { action }) };
    if (asItem) {
      screen.itemId = segments[parts.length]!;
      if (resource.idParam) params[resource.idParam] = screen.itemId;
    }
    if (!screenAllowed(screen)) continue;
    return screen;
  }
  return undefined;
}

/** Whether a screen's action exists for what it is on (`create` on a collection with a Create, ...). */
function screenAllowed(s: Screen): boolean {
  const onItem = s.itemId !== undefined || s.resource.kind === 'singleton';
  if (s.action === undefined) return true;
  if (s.action === 'create') return !onItem && !!s.resource.create;
  if (s.action === 'edit') return onItem && !!s.resource.update;
  return s.resource.verbs.some((v) => v.name === s.action && (v.on === 'resource') === onItem);
}

/**
 * Custom methods that belong to the foundation's own screens (signing in, the account menu,
 * Operation progress), not to generated ones: operationId → where the admin offers it.
 */
export const DEDICATED_SCREENS: Record<string, string> = {
  AuthenticateUser: 'sign-in',
  RefreshToken: 'session (refreshed before expiry)',
  SignOutEverywhere: 'account menu: sign out everywhere',
  RequestPasswordReset: 'sign-in: forgot password',
  ResetPassword: 'reset-password page (mailed link)',
  ConfirmEmail: 'confirm-email page (mailed link)',
  ExchangeHandoff: 'sign-up hand-off',
  AcceptInvitation: 'accept-invitation page (mailed link)',
  GetUser: 'account menu: profile',
  ChangeEmailUser: 'profile: change email',
  ChangePasswordUser: 'profile: change password',
  GetOperation: 'Operation progress (generic OperationProgress, polled)',
  CancelOperation: 'Operation progress: cancel',
};

/** The API path of an operation with its params filled (`/tenant-api/v1/websites/W/blog_posts`). */
export const apiPath = (template: string, params: Record<string, string>): string =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${template} needs ${name}`);
    return encodeURIComponent(value);
  });

export { API_PREFIX };
