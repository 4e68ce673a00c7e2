import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
const app = Fastify();
app.setSchemaController({
  compilersFactory: {
    buildValidator(externalSchemas) {
      const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false });
      for (const s of Object.values(externalSchemas ?? {})) ajv.addSchema(s);
      return ({ schema }) => ajv.compile(schema);
    },
  },
});
await app.register(async (scope) => {
  await scope.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 'x', version: '1' } },
    refResolver: { buildLocalReference: (json, _b, _f, i) => json.$id ?? `def-${i}` } });
  scope.addSchema({ $id: 'Detail', oneOf: [
    { type: 'object', title: 'RequestInfo', properties: { type: { const: 'REQUEST_INFO' }, request_id: { type: 'string' } }, required: ['type', 'request_id'] },
    { type: 'object', title: 'ResourceInfo', properties: { type: { const: 'RESOURCE_INFO' }, resource: { type: 'object', additionalProperties: true } }, required: ['type', 'resource'] },
  ], discriminator: { propertyName: 'type' } });
  scope.addSchema({ $id: 'Error', type: 'object', properties: { error: { type: 'object', properties: { status: { type: 'string', enum: ['A', 'B'] }, details: { type: 'array', items: { $ref: 'Detail#' } } }, required: ['status'] } }, required: ['error'] });
  scope.addSchema({ $id: 'Thing', type: 'object', properties: { name: { type: 'string', readOnly: true }, a: { type: 'integer' } }, required: ['name'] });
  scope.addSchema({ $id: 'ThingCreate', type: 'object', properties: { a: { type: ['integer', 'null'] } }, propertyNames: { enum: ['a', 'name'] } });
  scope.post('/things', { schema: { operationId: 'CreateThing', body: { $ref: 'ThingCreate#' },
    headers: { type: 'object', properties: { 'If-Match': { type: 'string', maxLength: 10, description: 'etag' } } },
    response: { 201: { $ref: 'Thing#', description: 'Created.', headers: { Location: { type: 'string', description: 'where' } } }, 400: { $ref: 'Error#', description: 'Bad.' } } },
    handler: async (req, reply) => { if (req.body.a === 7) return reply.code(400).send({ error: { status: 'A', extra: 1, details: [{ type: 'RESOURCE_INFO', resource: { x: 1 } }, { type: 'REQUEST_INFO', request_id: 'r' }, {type: 'WHAT'}] } }); return reply.code(201).send({ name: 'n', a: req.body.a, hidden: 1 }); } });
  
  scope.get('/doc', async () => scope.swagger());
});

for (const body of [{ a: 1, name: 'ignored' }, { a: 7 }, { b: 1 }, { a: 'x' }]) {
  const r = await app.inject({ method: 'POST', url: '/things', payload: body, headers: {} });
  console.log(r.statusCode, r.body);
}
const doc = (await app.inject('/doc')).json();

