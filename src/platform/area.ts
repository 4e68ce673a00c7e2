import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from './db/database.js';
import type { RouteContextFactory } from './http/route-context.js';
import type { Operations, OperationRun } from './jobs/operations.js';
import type { ResourceDecl, Row, WriteContext } from './resource/declaration.js';
import type { ResourceService } from './resource/engine.js';
import type { BlobStore } from './storage/blobs.js';
import type { SecretBox } from './crypto.js';
import type { Mailer } from './mail/mailer.js';
import type { Limits } from './limits/limits.js';
import type { Events } from './events/events.js';
import type { Db, Trx } from './db/schema.js';
import type { SiteContext, SiteEntry, SiteHtmlPage, SitePageContext, SitePageHandler, SiteScript, SiteSearch, SiteView, SiteVisitor } from './site-context.js';

// The site's request types, so an area's site contribution imports everything it needs from here.
export type {
  SiteContext, SiteEntry, SiteHost, SiteHtmlPage, SitePage, SitePageContext, SitePageHandler, SitePageMeta, SiteRawAnswer, SiteScript,
  SiteSearch, SiteSearchAnswer, SiteSearchHit, SiteSettings, SiteView, SiteVisitor, SiteWebsite,
} from './site-context.js';

/** A new session's bearer token, as sign-in answers it. */
export interface IssuedToken {
  token: string;
  expire_time: string;
}

/**
 * What other areas use of the users area (src/users implements it: `createUserService`), declared
 * here so the platform does not import an area.
 */
export interface Users {
  /** Creates a user with their profile inside the caller's transaction (password rules and hashing included). */
  insertUser(trx: Trx, input: { email: string; password: string; display_name?: string }, now: number): Promise<{ id: string; email: string; display_name: string | null }>;
  /** A new session of the user and its first token. */
  startSession(userId: string, now: number): Promise<IssuedToken>;
  /** Whether a user signs in with this address (compared normalised). */
  emailTaken(email: string): Promise<boolean>;
}

/** What every area is built from: the platform's shared services, passed explicitly. */
export interface AreaDeps {
  config: Config;
  database: Database;
  operations: Operations;
  blobs: BlobStore;
  secrets: SecretBox;
  /** Outgoing mail: `mail.enqueue(trx, …)` in the causing transaction, `afterCommit(() => mail.wake())`. */
  mail: Mailer;
  /**
   * Users and sessions: `insertUser(trx, {email, password, display_name}, now)` creates a user with
   * their profile (inside the caller's transaction), `startSession(userId, now)` signs one in.
   */
  users: Users;
  /** Security limits that hold across processes (in memory on SQLite, shared counters on PostgreSQL). */
  limits: Limits;
  /**
   * Events of every committed write (platform/events/events.ts): `record(trx, event, afterCommit)` for
   * writes outside the engine, `onEvent`/`afterEventCommitted` to subscribe (from `Area.events`),
   * `catalogue()` of every type.
   */
  events: Events;
  logger: FastifyBaseLogger;
  /**
   * Every resource service by collection id. Filled once all areas declared their resources, so
   * read it when a request or job runs, not while building declarations.
   */
  services: Record<string, ResourceService>;
  /** Every area of the platform (`src/areas.ts`). */
  areas: readonly Area[];
  /** Every area's references to rows of `target` (a table), e.g. to count them before a Delete. */
  referencesTo(target: string): Reference[];
}

/** What hand-written routes of one surface receive. */
export interface SurfaceDeps extends AreaDeps {
  context: RouteContextFactory;
  /** e.g. `/tenant-api/v1`. */
  prefix: string;
  /** Absolute URL prefix of the surface, for `Location` headers. */
  baseUrl: string;
}

/**
 * A one-time step of website provisioning (default view, templates, ...). Runs inside the
 * PROVISION_WEBSITE Operation with its own `metadata.step`; must be safe to run again after a crash.
 */
export interface ProvisioningStep {
  name: string;
  run(db: Db | Trx, website: Row, op: OperationRun): Promise<void>;
}

/**
 * Something one area keeps that points at another area's rows inside a website (a page version's
 * customer groups, the theme's logo, overlays of a view). Whenever a row of `target` is deleted,
 * the engine calls `detach` in the same transaction, so no id of a deleted row is left behind. A
 * resource may refuse its Delete while `count` is not zero (views do, unless `force`).
 */
export interface Reference {
  /** Table of the rows pointed at: `views`, `customer_groups`, `media`, `navigation_menus`, ... */
  target: string;
  /** e.g. `cms_pages.visible_view_ids`, named in refusals. */
  describe: string;
  count(trx: Db | Trx, websiteId: string, targetId: string): Promise<number>;
  detach(trx: Db | Trx, websiteId: string, targetId: string, now: number): Promise<void>;
}

/**
 * One area of SPEC (customers, media, ...). `src/areas.ts` lists them; `app.ts` builds each
 * area's resource services, mounts their routes and registers their jobs and hooks.
 */
export interface Area {
  name: string;
  /** Declared resources; the engine derives their routes. */
  resources?(deps: AreaDeps): ResourceDecl[];
  /** Routes the engine cannot derive, per surface (e.g. a multipart upload, a public read). */
  tenantRoutes?(app: FastifyInstance, deps: SurfaceDeps): void | Promise<void>;
  engineRoutes?(app: FastifyInstance, deps: SurfaceDeps): void | Promise<void>;
  /** Operation handlers (background work), registered in servers and `npm run worker` alike. */
  jobs?(operations: Operations, deps: AreaDeps): void;
  /** Appended to website provisioning, in area order. */
  provisioningSteps?(deps: AreaDeps): ProvisioningStep[];
  /** Runs inside the transaction that creates an account (also during sign-up). */
  onAccountCreate?(ctx: WriteContext, account: Row, deps: AreaDeps): Promise<void>;
  /** What the area adds to every rendered website (pages inside views, root routes, templates); see src/site/. */
  site?(deps: AreaDeps): SiteContribution;
  /**
   * Subscribes to events and declares the event types the area writes outside the engine
   * (`events.onEvent` runs in the write's transaction, `events.afterEventCommitted` after it commits).
   * Called once every resource service is built, in area order.
   */
  events?(events: Events, deps: AreaDeps): void;
  /** References to other areas' rows this area keeps (see Reference); a function when they need the deps. */
  references?: Reference[] | ((deps: AreaDeps) => Reference[]);
}

/**
 * What an area adds to every rendered site (`Area.site`), the way `resources` and `tenantRoutes`
 * add to the tenant surface. `src/site/site.surface.ts` mounts them; see docs/architecture.md.
 */
export interface SiteContribution {
  /** Liquid templates by name (`cms/page`); layouts and partials of the core are in src/site/templates.ts. */
  templates?: Record<string, string>;
  /**
   * Pages served inside every view (`/about` in the default view, `/de/about` in view `de`), as
   * find-my-way patterns (`/blog/:url_key`); the most specific pattern wins, `/*` is the fallback.
   */
  pages?: Array<{ pattern: string; handler: SitePageHandler }>;
  /** Everything published the area serves in one view, streamed (sitemap.xml, llms.txt, read API). */
  inventory?(ctx: SiteContext, view: SiteView): AsyncIterable<SiteEntry>;
  /**
   * First-party scripts the layout loads (`<script src defer data-…>`), chosen from the website's
   * settings as the default view reads them (analytics' collection script when it is on).
   */
  scripts?(settings: ReadonlyMap<string, unknown>): SiteScript[];
  /** Routes at the site root outside the views (forms, `/mcp`, feeds that span views, …). */
  routes?(site: FastifyInstance, deps: SiteDeps): void | Promise<void>;
  /**
   * The signed-in visitor of a request (its session cookie), read once per request before any
   * route runs; one contribution provides it (the customers area).
   */
  visitor?(request: FastifyRequest, ctx: SiteContext): Promise<SiteVisitor | undefined>;
  /** Ranked search of the site's published content; one contribution provides it (the search area). */
  search?: SiteSearch;
  /** What the area adds to a view's home page (the blog: its newest posts), merged into the home page's data. */
  home?(ctx: SitePageContext): Promise<Record<string, unknown> | undefined>;
}

/** What site contributions are built from. */
export interface SiteDeps extends AreaDeps {
  /** The resolved site of a request; every route of the site surface has it. */
  siteOf(request: FastifyRequest): SiteContext;
  /** Renders a template inside the layout, as page handlers' answers are rendered. */
  render(request: FastifyRequest, page: SiteHtmlPage, view?: SiteView): Promise<string>;
  /** The website's settings as one view reads them (cached per content version). */
  settings(ctx: SiteContext, view: SiteView): Promise<ReadonlyMap<string, unknown>>;
  /** Every area's inventory in one view, in area order. */
  inventory(ctx: SiteContext, view: SiteView): AsyncIterable<SiteEntry>;
  /** The site's search, when an area contributes one. */
  search?: SiteSearch;
  /** Every contribution's `home` data for the view's home page, merged. */
  home(ctx: SitePageContext): Promise<Record<string, unknown>>;
}
