import type { Grant } from './rights.js';

/** The signed-in user making a request. */
export interface Caller {
  userId: string;
  /** The sign-in session the bearer token belongs to (`sid`); ending it ends the token at once. */
  sessionId?: string;
}

/** The account (and website) a request reaches, and what the caller holds there. */
export interface AccessScope {
  accountId: string;
  websiteId?: string;
  /** The caller's role, as a resource name: `roles/editor`, `accounts/{a}/account_roles/{id}`. */
  role: string;
  /**
   * Whether the caller is an administrator of the account. The three fields below are always set for
   * requests (route-context); contexts the platform builds for itself (sign-up) may leave them out.
   */
  administrator?: boolean;
  /** What the caller holds in the account: its role's grants and its membership's own. */
  grants?: readonly Grant[];
  /** The websites the membership is limited to; empty or absent: every website of the account. */
  websiteIds?: readonly string[];
}

/** Transport-free context every service function receives. */
export interface RequestContext {
  requestId: string;
  caller: Caller;
  /** Epoch ms at which the request is handled: one clock reading per request. */
  now: number;
  access?: AccessScope;
  /**
   * Set when the platform writes on behalf of an AI run rather than a person (editorial drafting):
   * the run's resource name (`accounts/{a}/ai_executions/{e}`) or the calendar entry that wrote.
   * Blog posts record it as the source of the fields it writes (`field_provenance`), so a later run
   * knows which fields a person has edited since.
   */
  agent?: string;
}
