import { read, write } from '../platform/auth/rights.js';
import type { FieldDecl } from '../platform/resource/declaration.js';
import { LANGUAGE_PATTERN } from '../websites/index.js';

/** Rights of every customer-area resource: a section beneath `website`, so editors write it. */
export const CUSTOMER_RIGHTS = { read: read('website.customers'), write: write('website.customers') };

/** `labels`: locale (BCP 47) to text, at most 255 characters each; replaced whole when sent. */
export function labelsField(description: string): FieldDecl {
  return {
    type: 'object',
    description,
    schema: {
      maxProperties: 100,
      propertyNames: { pattern: LANGUAGE_PATTERN, maxLength: 35 },
      additionalProperties: { type: 'string', maxLength: 255 },
    },
  };
}

/** Sort order of a sibling list: output-only, new items last, changed only by `:move`. */
export const SORT_ORDER_FIELD: FieldDecl = {
  type: 'integer',
  description: 'Position among siblings (0 first); new items come last; changed only by `:move`.',
  behavior: ['OUTPUT_ONLY'],
  notNull: true,
};
