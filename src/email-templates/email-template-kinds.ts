/**
 * The platform's email template kinds: what each is sent for, the placeholders it offers (with
 * the sample values `:render` uses), which of them a template must contain, and the text every
 * new website starts with. A website has exactly one template per kind.
 */
export interface PlaceholderDecl {
  name: string;
  description: string;
  /** A template of this kind is refused without it (the email would be useless: no reset link). */
  required?: boolean;
  sample: string;
}

export interface EmailTemplateKind {
  kind: string;
  display_name: string;
  description: string;
  placeholders: readonly PlaceholderDecl[];
  subject: string;
  body: string;
  text_body: string;
}

const site: PlaceholderDecl[] = [
  { name: 'site_name', description: 'Name of the website (setting `general.site.name`).', sample: 'Bob’s Bakery' },
  { name: 'site_url', description: 'Address of the website.', sample: 'https://bobs-bakery.example.com' },
];
const customer: PlaceholderDecl[] = [
  { name: 'customer_name', description: 'Display name of the customer (may be empty).', sample: 'Ada Lovelace' },
  { name: 'customer_email', description: 'Email address of the customer.', sample: 'ada@example.com' },
];

export const EMAIL_TEMPLATE_KINDS: readonly EmailTemplateKind[] = [
  {
    kind: 'customer_welcome',
    display_name: 'Customer welcome',
    description: 'Sent to a visitor right after they create a customer account on the website.',
    placeholders: [...site, ...customer, { name: 'account_url', description: 'Where the customer signs in.', sample: 'https://bobs-bakery.example.com/account' }],
    subject: 'Welcome to {{site_name}}',
    body: '<p>Hello {{customer_name}},</p><p>your account at {{site_name}} is ready. Sign in at <a href="{{account_url}}">{{account_url}}</a>.</p>',
    text_body: 'Hello {{customer_name}},\n\nyour account at {{site_name}} is ready. Sign in at {{account_url}}.\n',
  },
  {
    kind: 'customer_password_reset',
    display_name: 'Customer password reset',
    description: 'Sent when a customer asks to reset their password; the link expires.',
    placeholders: [
      ...site,
      ...customer,
      { name: 'reset_url', description: 'One-time link that sets a new password.', required: true, sample: 'https://bobs-bakery.example.com/account/reset?token=sample' },
      { name: 'expire_hours', description: 'Hours until the link expires.', sample: '24' },
    ],
    subject: 'Reset your password at {{site_name}}',
    body: '<p>Hello {{customer_name}},</p><p>follow <a href="{{reset_url}}">this link</a> within {{expire_hours}} hours to choose a new password. If you did not ask for it, ignore this email.</p>',
    text_body: 'Hello {{customer_name}},\n\nopen {{reset_url}} within {{expire_hours}} hours to choose a new password. If you did not ask for it, ignore this email.\n',
  },
  {
    kind: 'customer_email_confirmation',
    display_name: 'Customer email confirmation',
    description: 'Sent to confirm a customer’s email address before the account is usable.',
    placeholders: [
      ...site,
      ...customer,
      { name: 'confirm_url', description: 'One-time link that confirms the address.', required: true, sample: 'https://bobs-bakery.example.com/account/confirm?token=sample' },
    ],
    subject: 'Confirm your email address for {{site_name}}',
    body: '<p>Hello {{customer_name}},</p><p>please confirm your address: <a href="{{confirm_url}}">{{confirm_url}}</a></p>',
    text_body: 'Hello {{customer_name}},\n\nplease confirm your address: {{confirm_url}}\n',
  },
  {
    kind: 'member_invitation',
    display_name: 'Member invitation',
    description: 'Sent to a person invited to work on the website’s account.',
    placeholders: [
      ...site,
      { name: 'inviter_name', description: 'Who sent the invitation.', sample: 'Bob Baker' },
      { name: 'account_name', description: 'Name of the account the invitation is for.', sample: 'Bob’s Bakery' },
      { name: 'role_name', description: 'Role the invitee will hold.', sample: 'editor' },
      { name: 'accept_url', description: 'Link that accepts the invitation.', required: true, sample: 'https://app.example.com/invitations/sample:accept' },
    ],
    subject: '{{inviter_name}} invited you to {{account_name}}',
    body: '<p>{{inviter_name}} invited you to join {{account_name}} as {{role_name}}.</p><p><a href="{{accept_url}}">Accept the invitation</a></p>',
    text_body: '{{inviter_name}} invited you to join {{account_name}} as {{role_name}}.\n\nAccept the invitation: {{accept_url}}\n',
  },
];

export const KIND_NAMES = EMAIL_TEMPLATE_KINDS.map((k) => k.kind);
export const kindOf = (kind: string): EmailTemplateKind | undefined => EMAIL_TEMPLATE_KINDS.find((k) => k.kind === kind);
