import { read, write } from '../platform/auth/rights.js';
import { FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import type { ResourceService } from '../platform/resource/engine.js';
import type { ProvisioningStep } from '../platform/area.js';
import { EMAIL_TEMPLATE_KINDS, KIND_NAMES, kindOf } from './email-template-kinds.js';
import { placeholderViolations, renderTemplate } from './email-template.service.js';
import { insertTemplatesOnce } from './email-templates.repo.js';

const MAX_BODY = 100_000;

const placeholderSchema = {
  type: 'array',
  maxItems: 100,
  items: {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 64, description: 'Written `{{name}}` in the subject or bodies.' },
      description: { type: 'string', maxLength: 1024, description: 'What it stands for.' },
      required: { type: 'boolean', description: 'The bodies must contain it.' },
      sample_value: { type: 'string', maxLength: 1024, description: 'What `:render` fills in when no value is given.' },
    },
  },
};

/**
 * Email templates: one per kind and website, created by provisioning (the id is the kind, e.g.
 * `websites/{w}/email_templates/customer_welcome`), editable, never deleted.
 */
export function emailTemplateResource(services: () => Record<string, ResourceService>): ResourceDecl {
  return {
    collection: 'email_templates',
    singular: 'EmailTemplate',
    table: 'email_templates',
    description:
      'Emails the platform sends on the website’s behalf. One template per kind, created with the website; the id is the kind. ' +
      '`subject`, `body` (HTML) and `text_body` (plain-text alternative) may use the `{{placeholders}}` the kind declares in `placeholders`; ' +
      'an undeclared placeholder, an unclosed `{{`, or a required placeholder missing from a body is INVALID_ARGUMENT naming the field. ' +
      'Templates cannot be created or deleted (Delete answers FAILED_PRECONDITION, reason `EMAIL_TEMPLATE_REQUIRED`). `:render` previews one with sample values.',
    collectionPath: 'websites/{website_id}/email_templates',
    itemPath: 'websites/{website_id}/email_templates/{email_template_id}',
    fields: {
      kind: { type: 'enum', description: 'What the email is sent for; also the id.', values: KIND_NAMES, behavior: ['OUTPUT_ONLY'], notNull: true },
      display_name: { type: 'string', description: 'Label of the kind.', behavior: ['OUTPUT_ONLY'], column: false },
      description: { type: 'string', description: 'When the platform sends it.', behavior: ['OUTPUT_ONLY'], column: false },
      subject: { type: 'string', description: 'Subject line; placeholders allowed.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
      body: { type: 'string', description: 'HTML body; placeholders allowed (values are HTML-escaped when sent).', behavior: ['REQUIRED'], maxLength: MAX_BODY, notBlank: true },
      text_body: { type: 'string', description: 'Plain-text alternative; absent means the mail is HTML only.', maxLength: MAX_BODY },
      placeholders: {
        type: 'object',
        description: 'Placeholders this kind offers, with whether a body must contain them and the sample value `:render` uses.',
        behavior: ['OUTPUT_ONLY'],
        column: false,
        schema: placeholderSchema,
      },
      is_customized: { type: 'boolean', description: 'Whether subject or bodies differ from the platform’s text for the kind.', behavior: ['OUTPUT_ONLY'], column: false },
    },
    filterable: ['kind', 'update_time'],
    sortable: ['kind', 'update_time'],
    defaultOrder: 'kind asc',
    methods: ['list', 'get', 'update', 'delete'],
    options: { validateOnly: true },
    rights: { read: read('website.settings'), write: write('website.settings') },
    hooks: {
      beforeUpdate(_ctx, next) {
        const kind = kindOf(next.kind)!;
        const violations = placeholderViolations(kind, { subject: next.subject, body: next.body, text_body: next.text_body });
        if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
      },
      beforeDelete() {
        throw new FailedPrecondition('EMAIL_TEMPLATE_REQUIRED', 'email templates cannot be deleted: the platform sends every kind; edit it instead');
      },
      present(row, resource) {
        const kind = kindOf(row.kind);
        if (!kind) return;
        resource.display_name = kind.display_name;
        resource.description = kind.description;
        resource.placeholders = kind.placeholders.map((p) => ({ name: p.name, description: p.description, required: p.required ?? false, sample_value: p.sample }));
        resource.is_customized = row.subject !== kind.subject || row.body !== kind.body || (row.text_body ?? null) !== kind.text_body;
      },
    },
    customMethods: [
      {
        verb: 'render',
        on: 'item',
        access: 'read',
        summary: 'Preview an email template',
        description:
          'Fills the template’s placeholders: `values` first, each placeholder’s `sample_value` for the rest. `subject`, `body` and `text_body` in the request ' +
          'preview unsaved text instead of the stored one (checked like an Update). Values are HTML-escaped in `body`; line breaks are dropped from `subject`. ' +
          'A value for a placeholder the kind does not declare is INVALID_ARGUMENT on `values.<name>`. Writes nothing.',
        body: {
          properties: {
            values: { type: 'object', additionalProperties: { type: 'string', maxLength: 10_000 }, maxProperties: 50, description: 'Placeholder name to value.' },
            subject: { type: 'string', maxLength: 255, description: 'Unsaved subject to preview.' },
            body: { type: 'string', maxLength: MAX_BODY, description: 'Unsaved HTML body to preview.' },
            text_body: { type: 'string', maxLength: MAX_BODY, description: 'Unsaved text body to preview.' },
          },
        },
        response: {
          type: 'object',
          title: 'RenderedEmail',
          properties: {
            subject: { type: 'string', maxLength: MAX_BODY, description: 'Subject with the placeholders filled.' },
            body: { type: 'string', maxLength: MAX_BODY, description: 'HTML.' },
            text_body: { type: 'string', maxLength: MAX_BODY, description: 'Absent when the template has none.' },
          },
          required: ['subject', 'body'],
        },
        async handle(ctx, call) {
          const template = await services()['websites/{website_id}/email_templates'].get(ctx, call.params);
          const kind = kindOf(template.kind as string)!;
          const parts = {
            subject: (call.body.subject as string | undefined) ?? (template.subject as string),
            body: (call.body.body as string | undefined) ?? (template.body as string),
            text_body: (call.body.text_body as string | undefined) ?? (template.text_body as string | undefined),
          };
          return renderTemplate(kind, parts, (call.body.values as Record<string, string> | undefined) ?? {});
        },
      },
    ],
  };
}

/** Provisioning: the platform's template of every kind, for a website that lacks it (safe to re-run). */
export const defaultEmailTemplatesStep: ProvisioningStep = {
  name: 'DEFAULT_EMAIL_TEMPLATES',
  async run(db, website) {
    const now = Date.now();
    await insertTemplatesOnce(
      db,
      EMAIL_TEMPLATE_KINDS.map((k) => ({
        website_id: website.id,
        id: k.kind,
        account_id: website.account_id,
        kind: k.kind,
        subject: k.subject,
        body: k.body,
        text_body: k.text_body,
        revision: 1,
        create_time: now,
        update_time: now,
      })),
    );
  },
};
