/**
 * The access guards the API enforces, as sentences shown next to the control that triggered them
 * (pure: tested in test/admin-unit/team.test.ts). Anything else falls back to the API's message.
 */
import { ApiError } from '@siteplatform/sdk';

export interface Guard {
  /** Which control it belongs next to. */
  field: 'role' | 'website_ids' | 'grants' | 'email' | 'general';
  message: string;
}

export function guardOf(err: unknown, action: 'member' | 'invite' | 'role' | 'leave' | 'remove' | 'delete-role' | 'resend'): Guard | undefined {
  if (!ApiError.is(err)) return undefined;
  const reason = err.reason;
  if (reason === 'LAST_ADMINISTRATOR') {
    if (action === 'leave') return { field: 'general', message: 'You are the last administrator of this account, so you cannot leave it. Make another member an administrator first.' };
    if (action === 'remove') return { field: 'general', message: 'This is the last administrator of the account, who cannot be removed. Make another member an administrator first.' };
    return { field: 'role', message: 'The account must keep an administrator: this is the last one. Make another member an administrator before changing this role.' };
  }
  if (reason === 'GRANT_EXCEEDS_OWN') {
    const field = err.fieldViolations[0]?.field ?? '';
    if (field === 'website_ids') return { field: 'website_ids', message: 'You are limited to some websites yourself, so you can only give websites among yours.' };
    if (field.startsWith('grants')) return { field: 'grants', message: action === 'role' ? 'This role would hold more than you hold yourself; you can only grant what your own role reaches.' : 'These grants go beyond what you hold yourself.' };
    return { field: 'role', message: 'This role holds more than you do: only someone holding at least as much can give it.' };
  }
  if (reason === 'ROLE_IN_USE') return { field: 'general', message: 'Members hold this role. Give them another role first, or delete it anyway: they then keep only their own grants (restricted).' };
  if (reason === 'INVITATION_NOT_PENDING') return { field: 'general', message: 'This invitation was already accepted or revoked.' };
  if (ApiError.is(err, 'ALREADY_EXISTS') && err.violation('email') !== undefined)
    return { field: 'email', message: 'This address is already a member or has a pending invitation: resend or revoke that one instead.' };
  if (ApiError.is(err, 'ALREADY_EXISTS') && action === 'resend') return { field: 'general', message: 'This address joined or got another invitation meanwhile.' };
  if (ApiError.is(err, 'RESOURCE_EXHAUSTED')) return { field: 'general', message: 'Too many invitation mails were sent from this account in the last hour. Try again later.' };
  if (ApiError.is(err, 'PERMISSION_DENIED') && !reason) return { field: 'general', message: 'Your role does not allow this.' };
  return undefined;
}
