import type { Database } from '../platform/db/database.js';
import type { RequestContext } from '../platform/auth/context.js';
import { passwordProblem } from '../platform/auth/passwords.js';
import { randomToken, tokenHash, type SecretBox } from '../platform/crypto.js';
import { AlreadyExists, InvalidArgument, NotFound, type FieldViolation } from '../platform/errors.js';
import type { Operations, OperationResource } from '../platform/jobs/operations.js';
import type { ResourceService, TransactionScope } from '../platform/resource/engine.js';
import { storedIdempotentResult, storeIdempotentResult } from '../platform/resource/idempotency.js';
import { operationScope } from '../operations/index.js';
import { normaliseEmail, toUserResource, type UserService } from '../users/index.js';
import { insertSignupHandoff, signupHandoffByTokenHash } from './signup.repo.js';

export interface SignUpInput {
  email: string;
  password: string;
  website_name: string;
  default_language: string;
  request_id?: string;
}

/** How long the one-time sign-up token can be exchanged and used to poll provisioning. */
const HANDOFF_LIFETIME_MS = 24 * 3600_000;

/**
 * Sign-up (SPEC 4.3): one transaction creates user, account (creator as administrator),
 * project and website (which enqueues its provisioning Operation), through the same resource
 * services the tenant surface uses. Either all of it exists afterwards or none of it.
 */
export function createSignupService(deps: {
  database: Database;
  users: UserService;
  accounts: ResourceService;
  projects: ResourceService;
  websites: ResourceService;
  operations: Operations;
  secrets: SecretBox;
}) {
  const { db, dialect } = deps.database;

  function validate(input: SignUpInput): void {
    const violations: FieldViolation[] = [];
    const problem = passwordProblem(input.password);
    if (problem) violations.push({ field: 'password', description: problem });
    if (input.website_name.trim() === '') violations.push({ field: 'website_name', description: 'must not be blank' });
    if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
  }

  async function replay(requestId: string): Promise<Record<string, unknown> | undefined> {
    const row = await storedIdempotentResult(db, 'signup', requestId);
    if (!row) return undefined;
    const stored = dialect.readJson<Record<string, unknown>>(row.result);
    return { ...stored, signup_token: deps.secrets.open(stored.signup_token as string) };
  }

  return {
    async checkEmailAvailability(email: string): Promise<{ available: boolean }> {
      return { available: !(await deps.users.emailTaken(email)) };
    },

    async signUp(input: SignUpInput, requestId: string, now: number): Promise<Record<string, unknown>> {
      validate(input);
      if (input.request_id) {
        const previous = await replay(input.request_id);
        if (previous) return previous;
      }
      if (await deps.users.emailTaken(input.email)) throw new AlreadyExists('an account with this email already exists', 'email');

      const signupToken = randomToken();
      const afterCommit: TransactionScope['afterCommit'] = [];
      let result: Record<string, unknown>;
      try {
        result = await db.transaction().execute(async (trx) => {
          const tx: TransactionScope = { trx, afterCommit };
          const user = await deps.users.insertUser(trx, { email: input.email, password: input.password }, now);
          const ctx: RequestContext = { requestId, caller: { userId: user.id }, now };
          const account = await deps.accounts.insert(ctx, tx, {}, { display_name: input.website_name.trim() });
          const inAccount: RequestContext = { ...ctx, access: { accountId: account.id as string, role: 'roles/administrator', administrator: true } };
          const project = await deps.projects.insert(inAccount, tx, { account_id: account.id as string }, { display_name: input.website_name.trim() });
          const website = await deps.websites.insert(inAccount, tx, { project_id: project.id as string }, {
            display_name: input.website_name.trim(),
            default_language: input.default_language,
          });
          const operationId = String(website.operation).split('/').pop()!;
          await insertSignupHandoff(trx, { token_hash: tokenHash(signupToken), user_id: user.id, operation_id: operationId, expire_time: now + HANDOFF_LIFETIME_MS, create_time: now });
          const answer = { ...toUserResource(user), account_id: account.id, signup_token: signupToken, operation: website.operation };
          if (input.request_id) {
            await storeIdempotentResult(trx, {
              scope: 'signup',
              requestId: input.request_id,
              // The one-time token is sealed: a database read alone cannot replay it.
              result: dialect.json({ ...answer, signup_token: deps.secrets.seal(signupToken) }),
              now,
            });
          }
          return answer;
        });
      } catch (err) {
        // A concurrent sign-up with the same request_id or email won the race.
        if (dialect.isUniqueViolation(err)) {
          const previous = input.request_id ? await replay(input.request_id) : undefined;
          if (previous) return previous;
          throw new AlreadyExists('an account with this email already exists', 'email');
        }
        throw err;
      }
      for (const fn of afterCommit) await fn();
      return result;
    },

    /** The provisioning Operation behind a sign-up token (polling works before and after the exchange). */
    async operationOf(signupToken: string, now: number): Promise<OperationResource> {
      // The handoff, then its Operation's scope through the operations area (the table is not this area's to join).
      const handoff = await signupHandoffByTokenHash(db, tokenHash(signupToken));
      if (!handoff || Number(handoff.expire_time) <= now) throw new NotFound('operation');
      const operation = await operationScope(db, handoff.operation_id);
      if (!operation) throw new NotFound('operation');
      return deps.operations.get(handoff.operation_id, { accountId: operation.account_id, websiteId: operation.website_id ?? undefined });
    },

    normaliseEmail,
  };
}
export type SignupService = ReturnType<typeof createSignupService>;
