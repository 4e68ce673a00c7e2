/**
 * The platform's mail templates: a subject, a plain-text part and an HTML part per template.
 * English only for now; `locale` is accepted and stored so translations can be added without
 * changing callers. Every value is escaped in the HTML part (values come from users: an account
 * named `<script>` stays text).
 */

/** Which mail, and the data each one needs (all strings; links are built with `mail.link`). */
export const MAIL_TEMPLATES = {
  invitation: ['account_name', 'inviter_name', 'role_name', 'accept_url', 'expire_time'],
  password_reset: ['reset_url', 'expire_time'],
  email_change_confirm: ['confirm_url', 'new_email', 'expire_time'],
  email_change_notice: ['new_email'],
  password_changed: ['change_time'],
  webhook_disabled: ['website_name', 'webhook_url', 'reason', 'webhooks_url'],
  /**
   * A website's own email template (src/email-templates/), filled in when it was enqueued: the
   * mailer sends the parts as they are (values were escaped for the HTML part when filled in).
   */
  website: ['subject', 'html', 'text'],
} as const satisfies Record<string, readonly string[]>;

export type MailTemplateId = keyof typeof MAIL_TEMPLATES;

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const PRODUCT = 'Site Platform';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Plain-text paragraphs and an optional call to action, rendered to both parts alike. */
interface MailBody {
  subject: string;
  paragraphs: string[];
  action?: { label: string; url: string };
  footer: string;
}

function render(body: MailBody): RenderedMail {
  const text = [
    ...body.paragraphs,
    ...(body.action ? [`${body.action.label}:\n${body.action.url}`] : []),
    `--\n${body.footer}`,
  ].join('\n\n');
  const html = [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
    '<body style="font-family:sans-serif;line-height:1.5;color:#222">',
    ...body.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    ...(body.action
      ? [`<p><a href="${escapeHtml(body.action.url)}" style="display:inline-block;padding:8px 16px;background:#2456d3;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(body.action.label)}</a></p>`]
      : []),
    `<p style="color:#777;font-size:12px">${escapeHtml(body.footer)}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject: body.subject, text: text + '\n', html: html + '\n' };
}

const NOT_YOU = `If you did not ask for this, you can ignore this message. ${PRODUCT}`;
const SECURITY = `You receive this notice for your account's security. If this was not you, reset your password now. ${PRODUCT}`;

const builders: { [T in Exclude<MailTemplateId, 'website'>]: (d: Record<(typeof MAIL_TEMPLATES)[T][number], string>) => MailBody } = {
  invitation: (d) => ({
    subject: `${d.inviter_name} invited you to ${d.account_name}`,
    paragraphs: [`${d.inviter_name} invited you to join ${d.account_name} on ${PRODUCT} as ${d.role_name}.`, `The invitation expires ${d.expire_time}.`],
    action: { label: 'Accept the invitation', url: d.accept_url },
    footer: NOT_YOU,
  }),
  password_reset: (d) => ({
    subject: `Reset your ${PRODUCT} password`,
    paragraphs: ['Someone asked to reset the password of your account. Choose a new password with the link below.', `The link works once and expires ${d.expire_time}.`],
    action: { label: 'Choose a new password', url: d.reset_url },
    footer: NOT_YOU,
  }),
  email_change_confirm: (d) => ({
    subject: `Confirm your new ${PRODUCT} email address`,
    paragraphs: [`Confirm that ${d.new_email} is the new sign-in address of your account.`, `The link works once and expires ${d.expire_time}.`],
    action: { label: 'Confirm this address', url: d.confirm_url },
    footer: NOT_YOU,
  }),
  email_change_notice: (d) => ({
    subject: `Your ${PRODUCT} email address is being changed`,
    paragraphs: [`Someone signed in to your account asked to change its sign-in address to ${d.new_email}. It changes once the new address is confirmed.`],
    footer: SECURITY,
  }),
  password_changed: (d) => ({
    subject: `Your ${PRODUCT} password was changed`,
    paragraphs: [`The password of your account was changed on ${d.change_time}. Other sessions were signed out.`],
    footer: SECURITY,
  }),
  webhook_disabled: (d) => ({
    subject: `A webhook of ${d.website_name} was disabled`,
    paragraphs: [`The webhook ${d.webhook_url} of ${d.website_name} stopped receiving events: ${d.reason}`, 'Fix the receiver, then enable the webhook again; events written meanwhile were not delivered (each delivery can be sent again with :redeliver).'],
    action: { label: 'Open the webhooks', url: d.webhooks_url },
    footer: `You receive this as an administrator of the account. ${PRODUCT}`,
  }),
};

/** Throws when `data` lacks a field the template needs (a programming error, caught at enqueue). */
export function checkMailData(template: MailTemplateId, data: Record<string, string>): void {
  const fields: readonly string[] | undefined = MAIL_TEMPLATES[template];
  if (!fields) throw new Error(`unknown mail template ${template}`);
  const missing = fields.filter((f) => typeof data[f] !== 'string');
  if (missing.length) throw new Error(`mail template ${template} needs ${missing.join(', ')}`);
}

/** The subject and both parts of one message. `locale` is reserved (English for every locale today). */
export function renderMail(template: MailTemplateId, data: Record<string, string>, _locale?: string): RenderedMail {
  checkMailData(template, data);
  if (template === 'website') {
    const html = `<!doctype html>\n<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>\n<body>\n${data.html}\n</body></html>\n`;
    return { subject: data.subject.replace(/[\r\n]+/g, ' '), text: data.text, html };
  }
  return render((builders[template] as (d: Record<string, string>) => MailBody)(data));
}
