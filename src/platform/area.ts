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

/** What every area is built from: the platform's shared services, passed explicitly. */
export interface AreaDeps {
  config: Config;
  database: Database;
  operations: Operations;
  blobs: BlobStore;
  secrets: SecretBox;
  logger: FastifyBaseLogger;
  /**
   * Every resource service by collection id. Filled once all areas declared their resources, so
   * read it when a request or job runs, not while building declarations.
   */
  services: Record<string, ResourceService>;
  /** Every area of the platform (`src/areas.ts`), e.g. to collect their view references. */
  areas: readonly Area[];
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
 * Something that points at a view (overlays, visible_view_ids, per-view settings). Deleting a view
 * that is still referenced is refused unless `force`, which detaches every reference first.
 */
export interface ViewReference {
  /** e.g. `cms_pages.visible_view_ids`, named in the refusal. */
  describe: string;
  count(trx: Kysely<any>, websiteId: string, viewId: string): Promise<number>;
  detach(trx: Kysely<any>, websiteId: string, viewId: string, now: number): Promise<void>;
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
  /** References to views this area keeps (see ViewReference). */
  viewReferences?: ViewReference[];
}
