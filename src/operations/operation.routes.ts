import type { FastifyInstance } from 'fastify';
import { read, write } from '../platform/auth/rights.js';
import { Reply, routeSchema } from '../platform/http/components.js';
import { errorResponses, operationSchema } from '../platform/http/openapi-shapes.js';
import { checkedFirst, type RouteContextFactory } from '../platform/http/route-context.js';
import type { Operations } from '../platform/jobs/operations.js';
import { routePath } from '../platform/resource/paths.js';

const ITEM = 'websites/{website_id}/operations/{operation_id}';
const params = {
  type: 'object',
  properties: {
    website_id: { type: 'string', maxLength: 256, description: 'Id of the website.' },
    operation_id: { type: 'string', maxLength: 256, description: 'Id of the Operation.' },
  },
  required: ['website_id', 'operation_id'],
};

/** Website Operations: Get and `:cancel` (clients cannot create or list them; SPEC 2.16). */
export function registerOperationRoutes(app: FastifyInstance, deps: { prefix: string; operations: Operations; context: RouteContextFactory }): void {
  const tags = ['operations'];
  app.get(routePath(deps.prefix, ITEM), {
    schema: routeSchema(app, {
      operationId: 'GetOperation',
      summary: 'Get an Operation',
      description: 'Poll until `done`; then exactly one of `response`/`error` is present.',
      tags,
      params,
      response: { 200: new Reply('The Operation.', operationSchema), ...errorResponses({ authenticated: true, roles: true, notFound: true }) },
    }),
    config: { right: read('website') },
    ...checkedFirst((request) => deps.context(request, ITEM, read('website'))),
    handler: async (request) => {
      const ctx = await deps.context(request, ITEM, read('website'));
      const { operation_id } = request.params as { operation_id: string };
      return deps.operations.get(operation_id, ctx.access!);
    },
  });

  app.post(routePath(deps.prefix, ITEM, 'cancel'), {
    schema: routeSchema(app, {
      operationId: 'CancelOperation',
      summary: 'Request cancellation of an Operation',
      description: 'Answers the Operation, still running: the worker stops at its next checkpoint and ends it with a CANCELLED error. FAILED_PRECONDITION when it already finished.',
      tags,
      params,
      response: { 200: new Reply('The Operation, still running until the worker reaches a checkpoint.', operationSchema), ...errorResponses({ authenticated: true, roles: true, notFound: true }) },
    }),
    config: { right: write('website') },
    ...checkedFirst((request) => deps.context(request, ITEM, write('website'))),
    handler: async (request) => {
      const ctx = await deps.context(request, ITEM, write('website'));
      const { operation_id } = request.params as { operation_id: string };
      return deps.operations.cancel(operation_id, ctx.access!, ctx.now);
    },
  });
}
