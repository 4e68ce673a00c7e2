import type { JsonSchema } from '../resource/schemas.js';

/** The canonical error body, as every error response documents it. */
export const errorBodySchema: JsonSchema = {
  type: 'object',
  title: 'ErrorBody',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'status', 'message', 'details'],
      properties: {
        code: { type: 'integer', description: 'HTTP status code of the answer.' },
        status: { type: 'string', description: 'Canonical status to branch on, e.g. INVALID_ARGUMENT.' },
        message: { type: 'string', description: 'For humans.' },
        details: {
          type: 'array',
          description: 'Typed details: REQUEST_INFO, PRECONDITION_FAILURE, FIELD_VIOLATION, RESOURCE_INFO, RETRY_INFO.',
          items: { type: 'object', required: ['type'], properties: { type: { type: 'string' } }, additionalProperties: true },
        },
      },
    },
  },
};

/** Responses every operation documents besides its success. */
export function errorResponses(): Record<string, JsonSchema> {
  return { '4xx': { description: 'Client error in the canonical error body.', ...errorBodySchema }, '5xx': { description: 'Server error in the canonical error body.', ...errorBodySchema } };
}

/** snake_case → PascalCase, for operationIds. */
export function pascal(snake: string): string {
  return snake.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}

/** The Operation resource (SPEC 2.16). */
export const operationSchema: JsonSchema = {
  type: 'object',
  title: 'Operation',
  required: ['name', 'done', 'metadata'],
  properties: {
    name: { type: 'string', description: 'e.g. `websites/{website}/operations/{operation}`.' },
    done: { type: 'boolean', description: 'True means finished, not succeeded.' },
    metadata: {
      type: 'object',
      description: '`type`, `step`, `progress_percent` (only where counted), timestamps, `cancel_requested`.',
      additionalProperties: true,
    },
    response: { type: 'object', description: 'The resulting resource, when done with success.', additionalProperties: true },
    error: { type: 'object', description: 'Canonical error, when done with failure.', additionalProperties: true },
  },
};
