import { createHash, randomBytes } from 'node:crypto';
import type { Db, Trx } from '../platform/db/schema.js';
import { FailedPrecondition, Unauthenticated } from '../platform/errors.js';
import { deleteExpiredSessions, deleteSession, deleteSessionsOf, extendSession, insertSession, sessionForRenewal, sessionWithCustomer } from './customer-sessions.repo.js';
import { customerActivity } from './customers.repo.js';

/** How long a customer session lasts without renewal. */
export const CUSTOMER_SESSION_LIFETIME_MS = 14 * 24 * 3600_000;
/**
 * A session is renewed only once less than this is left (half the lifetime): reading a page is a
 * read-only `check`, and at most one write renews a session per week of use.
 */
export const CUSTOMER_SESSION_RENEW_BELOW_MS = CUSTOMER_SESSION_LIFETIME_MS / 2;

export interface CustomerSession {
  /** The bearer secret; only its SHA-256 is stored. */
  token: string;
  customerId: string;
  websiteId: string;
  expireTime: number;
}

/**
 * Sessions of customers on the rendered site (SPEC 2.15: a password change or Delete signs the
 * customer out everywhere; `is_active: false` stops renewal). The site's sign-in is not part of
 * the tenant API; this store is what it will use.
 */
export interface CustomerSessions {
  /** Starts a session for an active customer of the website. */
  create(websiteId: string, customerId: string, now: number): Promise<CustomerSession>;
  /**
   * Reads a live session without writing (every site request does): UNAUTHENTICATED when it is
   * unknown, expired, revoked or its customer inactive. `renewDue` when less than half the lifetime is left.
   */
  check(token: string, now: number): Promise<CheckedCustomerSession>;
  /** Ends one session (sign-out); nothing when it is already gone. */
  revoke(token: string): Promise<void>;
  /** Extends a live session; UNAUTHENTICATED when it is unknown, expired, revoked or its customer inactive. */
  renew(token: string, now: number): Promise<CustomerSession>;
  /** Ends every session of the customer, inside the caller's transaction when given one. */
  revokeAll(db: Db | Trx, customerId: string): Promise<number>;
}

/** A live session as `check` reads it, with the customer's own fields the site shows. */
export interface CheckedCustomerSession extends CustomerSession {
  email: string;
  displayName: string | null;
  renewDue: boolean;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
const isTrue = (v: unknown) => v === true || v === 1;

export function createCustomerSessions(deps: { db: Db }): CustomerSessions {
  const { db } = deps;
  return {
    async create(websiteId, customerId, now) {
      const customer = await customerActivity(db, websiteId, customerId);
      if (!customer) throw new FailedPrecondition('CUSTOMER_NOT_FOUND', `customer ${customerId} does not exist on the website`);
      if (!isTrue(customer.is_active)) throw new FailedPrecondition('CUSTOMER_INACTIVE', 'the customer is not active and may not sign in');
      const token = randomBytes(32).toString('base64url');
      const expireTime = now + CUSTOMER_SESSION_LIFETIME_MS;
      // Housekeeping: the customer's expired sessions go when a new one starts.
      await deleteExpiredSessions(db, customerId, now);
      await insertSession(db, { token_hash: hashOf(token), website_id: websiteId, customer_id: customerId, expire_time: expireTime, create_time: now });
      return { token, customerId, websiteId, expireTime };
    },

    async check(token, now) {
      const session = await sessionWithCustomer(db, hashOf(token));
      if (!session || Number(session.expire_time) <= now) throw new Unauthenticated('the customer session is unknown or expired');
      if (!isTrue(session.is_active)) throw new Unauthenticated('the customer is not active');
      const expireTime = Number(session.expire_time);
      return {
        token,
        customerId: session.customer_id,
        websiteId: session.website_id,
        expireTime,
        email: session.email,
        displayName: session.display_name ?? null,
        renewDue: expireTime - now < CUSTOMER_SESSION_RENEW_BELOW_MS,
      };
    },

    async revoke(token) {
      await deleteSession(db, hashOf(token));
    },

    async renew(token, now) {
      const hash = hashOf(token);
      const session = await sessionForRenewal(db, hash);
      if (!session || Number(session.expire_time) <= now) throw new Unauthenticated('the customer session is unknown or expired');
      if (!isTrue(session.is_active)) throw new Unauthenticated('the customer is not active; the session cannot be renewed');
      const expireTime = now + CUSTOMER_SESSION_LIFETIME_MS;
      await extendSession(db, hash, expireTime);
      return { token, customerId: session.customer_id, websiteId: session.website_id, expireTime };
    },

    async revokeAll(trx, customerId) {
      return deleteSessionsOf(trx, customerId);
    },
  };
}
