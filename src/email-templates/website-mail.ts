import type { Db, Trx } from '../platform/db/schema.js';
import type { Mailer } from '../platform/mail/mailer.js';
import { kindOf } from './email-template-kinds.js';
import { renderTemplate } from './email-template.service.js';
import { storedTemplate } from './email-templates.repo.js';

/**
 * Enqueues one of a website's own emails (a `customer_*` kind) inside the caller's transaction:
 * the website's stored template of the kind, filled with `values` (escaped in the HTML body), sent
 * as the mailer's `website` template. The caller wakes the mailer once the transaction committed.
 * Answers false (and sends nothing) when the website has no template of the kind.
 */
export async function enqueueWebsiteMail(
  trx: Db | Trx,
  mail: Mailer,
  message: { websiteId: string; kind: string; to: string; values: Record<string, string> },
): Promise<boolean> {
  const kind = kindOf(message.kind);
  if (!kind) throw new Error(`unknown email template kind ${message.kind}`);
  const stored = await storedTemplate(trx, message.websiteId, message.kind);
  if (!stored) return false;
  const filled = renderTemplate(kind, { subject: stored.subject, body: stored.body, text_body: stored.text_body }, message.values);
  // HTML-only templates still get a plain-text part: the body's text.
  const text = filled.text_body ?? filled.body.replace(/<[^>]*>/g, ' ').replace(/[ \t]+/g, ' ').trim();
  await mail.enqueue(trx, { to: message.to, template: 'website', data: { subject: filled.subject, html: filled.body, text } });
  return true;
}
