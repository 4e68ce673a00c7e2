import { AlreadyExists, FailedPrecondition, InvalidArgument, type FieldViolation } from '../platform/errors.js';
import type { ResourceDecl, Row } from '../platform/resource/declaration.js';
import { ATTRIBUTE_TYPES, SELECT_TYPES, TEXT_CAP, TEXT_TYPES } from './attribute-values.js';
import { lockWebsite } from '../websites/index.js';
import { attributeKeyTaken, countOnWebsite, removeAttributeValues } from './customers.repo.js';
import { appendSortOrder } from '../platform/resource/ordering.js';
import { refuseSortOrderChange } from './customer-attribute-group.resource.js';
import type { CustomerAreaDeps } from './customer.resource.js';
import { CUSTOMER_RIGHTS, labelsField, SORT_ORDER_FIELD } from './shared.js';

/** SPEC 8: attribute definitions per website. */
export const MAX_ATTRIBUTES = 100;
export const ATTRIBUTE_KEY_PATTERN = '^[a-z][a-z0-9_]{0,63}$';
/** A customer's own field names (and the common ones), which an attribute key may not take. */
export const RESERVED_KEYS = new Set([
  'email',
  'password',
  'display_name',
  'tags',
  'manual_group_ids',
  'group_ids',
  'is_active',
  'attributes',
  'name',
  'id',
  'create_time',
  'update_time',
  'etag',
]);

const OPTION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['value', 'display_name'],
  properties: {
    value: { type: 'string', minLength: 1, maxLength: 255, description: 'Stored value; unique within the field.' },
    display_name: { type: 'string', minLength: 1, maxLength: 255, description: 'Shown text.' },
    labels: { type: 'object', description: 'Locale to text, each at most 255 characters.', ...labelsField('').schema },
  },
};

/** SPEC 2.13: the updated definition is checked as a whole. */
function checkWhole(row: Row, dialect: CustomerAreaDeps['database']['dialect']): void {
  const violations: FieldViolation[] = [];
  const type = row.type as string;
  const options = dialect.readJson<Array<{ value: string }> | null>(row.options);
  if (SELECT_TYPES.includes(type)) {
    if (!options || options.length === 0) violations.push({ field: 'options', description: `${type} needs 1 to 100 options` });
    else {
      const seen = new Set<string>();
      for (const [i, o] of options.entries()) {
        if (seen.has(o.value)) violations.push({ field: `options[${i}].value`, description: `${JSON.stringify(o.value)} is not unique within the field` });
        seen.add(o.value);
      }
    }
  } else if (options) {
    violations.push({ field: 'options', description: `only SELECT and MULTISELECT fields have options, not ${type}` });
  }
  const [minLength, maxLength] = [row.min_length, row.max_length].map((v) => (v === null || v === undefined ? null : Number(v)));
  if (TEXT_TYPES.includes(type)) {
    const cap = TEXT_CAP[type];
    if (maxLength !== null && maxLength > cap) violations.push({ field: 'max_length', description: `must be at most ${cap} for ${type}` });
    if (minLength !== null && minLength > (maxLength ?? cap)) violations.push({ field: 'min_length', description: 'must not exceed max_length' });
  } else {
    if (minLength !== null) violations.push({ field: 'min_length', description: `only TEXT and TEXTAREA fields have lengths, not ${type}` });
    if (maxLength !== null) violations.push({ field: 'max_length', description: `only TEXT and TEXTAREA fields have lengths, not ${type}` });
  }
  const [minValue, maxValue] = [row.min_value, row.max_value].map((v) => (v === null || v === undefined ? null : Number(v)));
  if (type === 'NUMBER') {
    if (minValue !== null && maxValue !== null && minValue > maxValue) violations.push({ field: 'min_value', description: 'must not exceed max_value' });
  } else {
    if (minValue !== null) violations.push({ field: 'min_value', description: `only NUMBER fields have a range, not ${type}` });
    if (maxValue !== null) violations.push({ field: 'max_value', description: `only NUMBER fields have a range, not ${type}` });
  }
  if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
}

/** Fields the website adds to its customers (SPEC 2.13). */
export function customerAttributeResource(deps: CustomerAreaDeps): ResourceDecl {
  const { dialect } = deps.database;
  return {
    collection: 'customer_attributes',
    singular: 'CustomerAttribute',
    table: 'customer_attributes',
    description: `A field added to the website's customers; at most ${MAX_ATTRIBUTES} per website. Deleting one removes its values from every customer (prefer \`is_active: false\`).`,
    collectionPath: 'websites/{website_id}/customer_attributes',
    itemPath: 'websites/{website_id}/customer_attributes/{attribute_id}',
    fields: {
      key: {
        type: 'string',
        description: 'Key in `customer.attributes`: a lowercase letter then up to 63 lowercase letters, digits, underscores; unique on the website; not a customer field name. Fixed after create.',
        behavior: ['REQUIRED', 'IMMUTABLE'],
        pattern: ATTRIBUTE_KEY_PATTERN,
        maxLength: 64,
        example: 'shoe_size',
      },
      display_name: { type: 'string', description: 'Label of the field.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
      labels: labelsField('Locale to label, each at most 255 characters; replaced whole when sent; an omitted locale shows `display_name`.'),
      description: { type: 'string', description: 'Help text.', maxLength: 2000 },
      type: { type: 'enum', description: 'Value type; fixed after create. DATE values are `YYYY-MM-DD`.', behavior: ['REQUIRED', 'IMMUTABLE'], values: ATTRIBUTE_TYPES },
      options: {
        type: 'object',
        description: 'For SELECT/MULTISELECT: 1 to 100 entries, `value` unique within the field; none for other types; replaced whole when sent.',
        schema: { type: 'array', minItems: 1, maxItems: 100, items: OPTION_SCHEMA },
      },
      is_required: { type: 'boolean', description: 'Every customer must have a value.', default: false },
      show_in_registration: { type: 'boolean', description: 'Shown on the site sign-up form.', default: false },
      is_active: { type: 'boolean', description: 'Off: removed from forms, new values refused, existing values stay readable.', default: true },
      min_length: { type: 'integer', description: 'TEXT/TEXTAREA only: shortest value.', minimum: 0, maximum: 8192 },
      max_length: { type: 'integer', description: 'TEXT/TEXTAREA only: longest value; at most 1024 for TEXT, 8192 for TEXTAREA (the default when unset).', minimum: 1, maximum: 8192 },
      min_value: { type: 'number', description: 'NUMBER only: smallest value.' },
      max_value: { type: 'number', description: 'NUMBER only: largest value.' },
      group_id: { type: 'string', description: 'Section (`customer_attribute_groups` id of the same website); absent means the default section.', maxLength: 64, refersTo: { table: 'customer_attribute_groups', what: 'a customer attribute section' } },
      sort_order: SORT_ORDER_FIELD,
    },
    filterable: ['display_name', 'group_id', 'is_active', 'is_required', 'key', 'show_in_registration', 'type'],
    sortable: ['key', 'sort_order'],
    defaultOrder: 'sort_order asc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { requestId: true, validateOnly: true },
    rights: CUSTOMER_RIGHTS,
    hooks: {
      async beforeCreate(ctx, row) {
        if (RESERVED_KEYS.has(row.key)) throw InvalidArgument.field('key', `${row.key} is a field of the customer itself`);
        checkWhole(row, dialect);
        await lockWebsite(ctx.trx, dialect, row.website_id);
        if (await attributeKeyTaken(ctx.trx, row.website_id, row.key)) throw new AlreadyExists(`an attribute with key ${row.key} already exists on the website`, 'key');
        if ((await countOnWebsite(ctx.trx, 'customer_attributes', row.website_id)) >= MAX_ATTRIBUTES) {
          throw new FailedPrecondition('ATTRIBUTE_LIMIT', `a website has at most ${MAX_ATTRIBUTES} customer attributes`);
        }
        row.sort_order = await appendSortOrder(ctx.trx, 'customer_attributes', { website_id: row.website_id });
      },
      async beforeUpdate(ctx, next, previous) {
        refuseSortOrderChange(ctx, Number(previous.sort_order));
        checkWhole(next, dialect);
      },
      async beforeDelete(ctx, row) {
        // SPEC 4.6: the values go from every customer, set-based, before Delete answers.
        await removeAttributeValues(ctx.trx, dialect, row.website_id, row.key, ctx.now);
      },
    },
  };
}
