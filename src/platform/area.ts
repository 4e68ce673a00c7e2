import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
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
import type { UserService } from '../users/user.service.js';
import type { SiteContribution } from '../site/contribution.js';

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
  users: UserService;
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
  run(db: Kysely<any>, website: Row, op: OperationRun): Promise<void>;
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
  count(trx: Kysely<any>, websiteId: string, targetId: string): Promise<number>;
  detach(trx: Kysely<any>, websiteId: string, targetId: string, now: number): Promise<void>;
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
