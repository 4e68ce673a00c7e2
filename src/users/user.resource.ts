import { read, write } from '../platform/auth/rights.js';
import type { RequestContext } from '../platform/auth/context.js';
import { Aborted, InvalidArgument, type FieldViolation } from '../platform/errors.js';
import type { CustomCall, ResourceDecl, Row } from '../platform/resource/declaration.js';
import { etagMatches, type ResourceService } from '../platform/resource/engine.js';
import type { AccountAction, UserService } from './user.service.js';
import { setDisplayName } from './users.repo.js';

/** The answer of calls that return nothing (AIP: `google.protobuf.Empty`). */
export const EMPTY_SCHEMA = { type: 'object', properties: {}, $id: 'Empty', description: 'No fields.' } as const;

const PASSWORD = { type: 'string', minLength: 1, maxLength: 256, writeOnly: true };

/** The precondition of a custom method (`If-Match` or body `etag`) against the resource as it is now. */
async function checkPrecondition(service: () => ResourceService, ctx: RequestContext, call: CustomCall): Promise<void> {
  if (!call.ifMatch) return;
  const current = await service().get(ctx, call.params);
  if (!etagMatches(call.ifMatch, String(current.etag))) throw new Aborted('the resource changed since the etag was read', current);
}

/**
 * `users/{user}`: the signed-in user (`users/me` is the alias), read-only here; the sign-up answer's
 * `Location`. Password and email changes are custom methods because each needs the current password
 * and has effects beyond the row (sessions, mails).
 */
export function userResource(deps: { users: UserService; services: Record<string, ResourceService> }): ResourceDecl {
  const self = () => deps.services.users;
  return {
    collection: 'users',
    singular: 'User',
    table: 'users',
    description: 'A person who signs in. Only the signed-in user reaches their own `users/{user}` (alias `users/me`).',
    collectionPath: 'users',
    itemPath: 'users/{user_id}',
    ownedByCaller: true,
    fields: {
      email: { type: 'string', description: 'Sign-in address (lowercase). Changed with `:change_email` once the new address is confirmed.', behavior: ['OUTPUT_ONLY'], maxLength: 254, example: 'ada@example.com' },
      display_name: { type: 'string', description: "The profile's display name (`users/{user}/profile`).", behavior: ['OUTPUT_ONLY'], maxLength: 255, example: 'Ada Lovelace' },
    },
    filterable: [],
    sortable: [],
    defaultOrder: 'create_time desc',
    methods: ['get'],
    rights: { read: read(''), write: write('') },
    customMethods: [
      {
        verb: 'change_password',
        on: 'item',
        access: 'write',
        summary: 'Change the password',
        description:
          'Needs the current password (a wrong one answers 400 INVALID_ARGUMENT naming `current_password`, and counts as a failed sign-in: ' +
          'too many answer 429 RESOURCE_EXHAUSTED with RETRY_INFO). The new password follows the sign-up rules (at least 8 characters with a letter ' +
          'and a digit; else INVALID_ARGUMENT naming `new_password`). Every other session of the user ends at once (their tokens answer 401); ' +
          "the caller's token keeps working. A `password_changed` notice is mailed to the user's address.",
        body: {
          properties: { current_password: { ...PASSWORD, description: 'The password in use now.' }, new_password: { ...PASSWORD, maxLength: 256, description: 'The new password.' } },
          required: ['current_password', 'new_password'],
        },
        response: EMPTY_SCHEMA,
        async handle(ctx, call) {
          await checkPrecondition(self, ctx, call);
          await deps.users.changePassword(ctx, call.body as { current_password: string; new_password: string });
          return {};
        },
      },
      {
        verb: 'change_email',
        on: 'item',
        access: 'write',
        summary: 'Change the sign-in address (confirmed by mail)',
        description:
          'Needs the current password (as `:change_password`). Mails a confirmation link (valid 24 hours, one use) to `new_email` and a notice to the ' +
          'current address; the address changes only when the link\'s token is sent to `users:confirm_email`. A new request replaces an earlier pending one. ' +
          '`new_email` already used by another user answers 409 ALREADY_EXISTS; the current address, 400 INVALID_ARGUMENT.',
        body: {
          properties: {
            new_email: { type: 'string', format: 'email', maxLength: 254, description: 'The new sign-in address.' },
            current_password: { ...PASSWORD, description: 'The password in use now.' },
          },
          required: ['new_email', 'current_password'],
        },
        response: EMPTY_SCHEMA,
        async handle(ctx, call) {
          await checkPrecondition(self, ctx, call);
          await deps.users.changeEmail(ctx, call.body as { new_email: string; current_password: string });
          return {};
        },
      },
    ],
  };
}

/** BCP 47 tag in canonical form, or undefined when it is not one. */
function canonicalLocale(tag: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical;
  } catch {
    return undefined;
  }
}

/** An IANA time zone name `Intl` knows, in its canonical case (`europe/berlin` → `Europe/Berlin`), or undefined. */
function knownTimeZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function checkAvatarUri(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not carry credentials';
  return undefined;
}

/**
 * `users/{user}/profile` (SPEC 2.1 singleton): how the user appears and their preferences. Its
 * display name is the user's (`users/{user}.display_name`, the inviter's name in invitation mails).
 */
export function profileResource(deps: { users: UserService; services: Record<string, ResourceService> }): ResourceDecl {
  const self = () => deps.services['users/{user_id}/profile'];
  return {
    kind: 'singleton',
    collection: 'profile',
    singular: 'UserProfile',
    table: 'user_profiles',
    description: "The signed-in user's profile: display name, locale, time zone, avatar.",
    collectionPath: 'users/{user_id}/profile',
    itemPath: 'users/{user_id}/profile',
    ownedByCaller: true,
    fields: {
      display_name: { type: 'string', description: 'How the user is shown to other members (and named in invitation mails).', maxLength: 255, trim: true, example: 'Ada Lovelace' },
      locale: { type: 'string', description: 'Preferred language, a BCP 47 tag (`en`, `de-CH`), stored in canonical case.', maxLength: 35, trim: true, example: 'en-GB' },
      time_zone: { type: 'string', description: 'IANA time zone (`Europe/Berlin`, `UTC`), stored in canonical case.', maxLength: 64, trim: true, example: 'Europe/Berlin' },
      avatar_uri: { type: 'string', description: 'Absolute http(s) URL of the avatar image.', maxLength: 2048, trim: true, example: 'https://cdn.example.com/ada.png' },
    },
    filterable: [],
    sortable: [],
    defaultOrder: 'create_time desc',
    methods: ['get', 'update'],
    rights: { read: read(''), write: write('') },
    hooks: {
      async beforeUpdate(ctx, next: Row, previous: Row) {
        const violations: FieldViolation[] = [];
        if (next.locale !== null && next.locale !== previous.locale) {
          const canonical = canonicalLocale(next.locale);
          if (canonical) next.locale = canonical;
          else violations.push({ field: 'locale', description: 'is not a BCP 47 language tag' });
        }
        if (next.time_zone !== null && next.time_zone !== previous.time_zone) {
          const zone = knownTimeZone(next.time_zone);
          if (zone) next.time_zone = zone;
          else violations.push({ field: 'time_zone', description: 'is not an IANA time zone' });
        }
        if (next.avatar_uri !== null && next.avatar_uri !== previous.avatar_uri) {
          const problem = checkAvatarUri(next.avatar_uri);
          if (problem) violations.push({ field: 'avatar_uri', description: problem });
        }
        if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
        if (next.display_name !== previous.display_name) {
          await setDisplayName(ctx.trx, next.id, next.display_name, ctx.now);
        }
      },
    },
    customMethods: [
      {
        verb: 'delete_account',
        on: 'item',
        access: 'write',
        summary: 'Delete the signed-in user',
        description:
          'Deletes the user with their profile, memberships, sessions (every token stops working) and pending mails\' tokens, in one transaction; ' +
          'content they wrote (pages, media, ...) stays with its account. Needs the current password (400 INVALID_ARGUMENT naming `current_password`).\n\n' +
          'Accounts where the user is the **only member** are deleted with them (with their projects and websites). ' +
          'Where the user is the **only administrator and other members exist**, the call is refused with 400 FAILED_PRECONDITION, reason ' +
          '`LAST_ADMINISTRATOR`, its message naming every such account, unless `account_actions` says what to do with each: `DELETE_ACCOUNT` ' +
          '(the account goes, with everything in it) or `TRANSFER` (`new_administrator`, another member as `users/{user}`, becomes administrator). ' +
          'Accounts with another administrator are simply left. An action may name only an account the user administers (else INVALID_ARGUMENT naming it).',
        body: {
          properties: {
            current_password: { ...PASSWORD, description: 'The password in use now.' },
            account_actions: {
              type: 'array',
              maxItems: 100,
              description: 'What happens to each account the user administers alone.',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['account', 'action'],
                properties: {
                  account: { type: 'string', maxLength: 80, description: 'The account, as `accounts/{account}`.' },
                  action: { type: 'string', enum: ['DELETE_ACCOUNT', 'TRANSFER'], description: '`DELETE_ACCOUNT`: delete it with everything in it; `TRANSFER`: make `new_administrator` an administrator.' },
                  new_administrator: { type: 'string', maxLength: 80, description: 'With `TRANSFER`: another member, as `users/{user}`.' },
                },
              },
            },
          },
          required: ['current_password'],
        },
        response: EMPTY_SCHEMA,
        async handle(ctx, call) {
          await checkPrecondition(self, ctx, call);
          await deps.users.deleteAccount(ctx, call.body as { current_password: string; account_actions?: AccountAction[] });
          return {};
        },
      },
    ],
  };
}
