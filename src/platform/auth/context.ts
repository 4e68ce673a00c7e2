import type { Role } from './rights.js';

/** The signed-in user making a request. */
export interface Caller {
  userId: string;
  /** The sign-in session the bearer token belongs to (`sid`); ending it ends the token at once. */
  sessionId?: string;
}

/** The account (and website) a request reaches, and the caller's role there. */
export interface AccessScope {
  accountId: string;
  websiteId?: string;
  role: Role;
}

/** Transport-free context every service function receives. */
export interface RequestContext {
  requestId: string;
  caller: Caller;
  /** Epoch ms at which the request is handled: one clock reading per request. */
  now: number;
  access?: AccessScope;
}
