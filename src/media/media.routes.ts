import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SurfaceDeps } from '../platform/area.js';
import { ApiError, InvalidArgument } from '../platform/errors.js';
import { refuseUnstorableText } from '../platform/http/input-guard.js';
import { Reply, routeSchema } from '../platform/http/components.js';
import { checkedFirst } from '../platform/http/route-context.js';
import { errorResponses, ETAG_HEADER, LOCATION_HEADER } from '../platform/http/openapi-shapes.js';
import { createValidatorCompiler } from '../platform/http/validation.js';
import { sendResource } from '../platform/resource/routes.js';
import { resourceSchema } from '../platform/resource/schemas.js';
import type { ResourceService } from '../platform/resource/engine.js';
import type { MediaService, ReceivedFile } from './media.service.js';

/** Multipart errors of @fastify/multipart and busboy → canonical errors naming the part. */
function uploadError(err: unknown, maxBytes: number): unknown {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: string }).code;
  switch (code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return new InvalidArgument(`file: is larger than the upload limit of ${maxBytes} bytes`, [{ field: 'file', description: `is larger than ${maxBytes} bytes` }]);
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new InvalidArgument('content-type: send multipart/form-data', [{ field: 'content-type', description: 'must be multipart/form-data' }]);
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_FILES_LIMIT':
      return new InvalidArgument('body: too many parts; send `file` once and at most `alt_text`, `title`, `folder_id`', [{ field: 'body', description: 'has too many parts' }]);
    case 'FST_PROTO_VIOLATION':
      return InvalidArgument.field('body', 'a part name is not allowed');
  }
  // busboy: a body that is not well-formed multipart (missing boundary, cut off).
  if (err instanceof Error && /multipart|boundary|Unexpected end of form|Malformed/i.test(err.message)) {
    return InvalidArgument.field('body', 'is not well-formed multipart/form-data');
  }
  return err;
}

/**
 * Reads the multipart body part by part: the `file` part streams to a temporary file (never
 * buffered whole), plain parts are collected. Two `file` parts, or a file part under another
 * name, are refused by name.
 */
async function receive(request: FastifyRequest, tempDir: string, maxBytes: number): Promise<{ file?: ReceivedFile; fields: Record<string, string> }> {
  const fields: Record<string, string> = {};
  let file: ReceivedFile | undefined;
  try {
    const parts = request.parts({
      // Names keep their path so that a path-like name can be refused rather than silently cut.
      preservePath: true,
      limits: { fileSize: maxBytes, files: 3, fields: 8, parts: 12, fieldSize: 4096, fieldNameSize: 64, headerPairs: 32 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw InvalidArgument.field(part.fieldname, 'is not a file part; send the file in the part `file`');
        }
        if (file) {
          part.file.resume();
          throw InvalidArgument.field('file', 'was sent twice; send one file per upload');
        }
        await mkdir(tempDir, { recursive: true });
        const path = join(tempDir, `${randomBytes(12).toString('hex')}.upload`);
        file = { path, size: 0, filename: part.filename ?? '' };
        const received = file;
        part.file.on('data', (chunk: Buffer) => {
          received.size += chunk.length;
        });
        await pipeline(part.file, createWriteStream(path, { flags: 'wx' }));
      } else {
        if (Object.hasOwn(fields, part.fieldname)) throw InvalidArgument.field(part.fieldname, 'was sent twice');
        fields[part.fieldname] = String(part.value ?? '');
      }
    }
    // The one body the JSON parser never sees: its plain parts get the same check (no NUL reaches a database).
    refuseUnstorableText(fields, '');
    return { file, fields };
  } catch (err) {
    if (file) await rm(file.path, { force: true });
    throw uploadError(err, maxBytes);
  }
}

/** `POST .../media`: the multipart upload, a Create the engine cannot derive from a JSON body. */
export async function registerMediaUploadRoute(
  app: FastifyInstance,
  deps: SurfaceDeps & { media: MediaService; mediaResource: () => ResourceService; maxUploadBytes: number },
): Promise<void> {
  const tempDir = join(deps.config.dataDir, 'tmp', 'uploads');
  // The multipart parser lives in a scope of its own: no other route accepts multipart bodies.
  await app.register(async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: true });
    const validators = createValidatorCompiler();
    const decl = deps.mediaResource().decl;
    const template = decl.collectionPath;
    scope.post(`${deps.prefix}/${template.replace(/\{([a-z_]+)\}/g, ':$1')}`, {
      // The body is read as a stream by the handler; its schema is documentation only.
      validatorCompiler: (route) => (route.httpPart === 'body' ? () => true : validators(route)),
      schema: routeSchema(scope, {
        operationId: 'CreateMedia',
        summary: 'Upload a Media',
        description:
          `\`multipart/form-data\`: the file in the part \`file\` (exactly one), optional plain parts \`alt_text\`, \`title\`, \`folder_id\` (a folder of this website; empty or absent: the root). ` +
          `The type is detected from the bytes; images get \`width\`/\`height\` after EXIF orientation. Larger than ${deps.maxUploadBytes} bytes (\`MEDIA_MAX_UPLOAD_BYTES\`) answers 400 INVALID_ARGUMENT on \`file\`; ` +
          'an image with more pixels than `MEDIA_MAX_PIXELS` answers 400 on `file` before it is decoded. A path-like filename (`../x`) is refused. Requires WRITE on section `website.media`.',
        tags: [decl.collection],
        params: { type: 'object', properties: { website_id: { type: 'string', maxLength: 256, description: 'Id of the website.' } }, required: ['website_id'] },
        body: {
          content: {
            'multipart/form-data': {
              schema: {
                $id: 'MediaUpload',
                type: 'object',
                description: 'Parts of an upload: the file and the writable fields of the Media.',
                properties: {
                  file: { type: 'string', format: 'binary', maxLength: deps.maxUploadBytes, description: 'The file; its part\'s filename becomes `original_filename`.' },
                  alt_text: { type: 'string', maxLength: 1000, description: 'Alternative text.' },
                  title: { type: 'string', maxLength: 255, description: 'Title.' },
                  folder_id: { type: 'string', maxLength: 64, description: 'A `media_folders` id of this website; empty or absent: the root.' },
                },
                required: ['file'],
              },
              encoding: { file: { contentType: 'application/octet-stream, image/*' } },
            },
          },
        },
        response: {
          201: new Reply('The stored Media.', resourceSchema(decl), { ETag: ETAG_HEADER, Location: LOCATION_HEADER }),
          ...errorResponses({ authenticated: true, roles: true, notFound: true }),
        },
      }),
      config: { right: decl.rights.write },
      ...checkedFirst((request) => deps.context(request, template, decl.rights.write)),
      handler: async (request, reply) => {
        const ctx = await deps.context(request, template, decl.rights.write);
        const { file, fields } = await receive(request, tempDir, deps.maxUploadBytes);
        try {
          const created = await deps.media.upload(ctx, request.params as Record<string, string>, file, fields);
          reply.header('location', `${deps.baseUrl}/${created.name}`);
          return sendResource(reply, created, 201);
        } finally {
          if (file) await rm(file.path, { force: true });
        }
      },
    });
  });
}

/** `GET /engine-api/v1/websites/{website_id}/media/{media_id}`: the public (transformed) read. */
export function registerMediaPublicRoute(app: FastifyInstance, deps: SurfaceDeps & { media: MediaService }): void {
  const handler = async (request: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const { website_id, media_id, filename } = request.params as { website_id: string; media_id: string; filename?: string };
    const answer = await deps.media.read(website_id, media_id, request.query as Record<string, unknown>, {
      accept: request.headers.accept,
      ifNoneMatch: request.headers['if-none-match'],
      filename,
      // The socket's peer, or the client a trusted proxy names (TRUST_PROXY).
      clientAddress: request.ip,
    });
    reply.code(answer.status).headers(answer.headers);
    return answer.status === 304 ? reply.send() : reply.send(answer.body);
  };
  const binary = {
    description: 'The stored bytes or the variant.',
    headers: { ETag: ETAG_HEADER },
    content: { '*/*': { schema: { type: 'string', format: 'binary', maxLength: 2 ** 31 } } },
  };
  const querystring = {
    type: 'object',
    properties: {
      w: { type: 'integer', format: 'int32', minimum: 1, maximum: 4096, description: 'Width: the image is fitted inside the `w`×`h` box, aspect kept, never enlarged unless `enlarge`.' },
      h: { type: 'integer', format: 'int32', minimum: 1, maximum: 4096, description: 'Height.' },
      crop: { type: 'string', enum: ['1', 'true'], description: 'Exactly `w`×`h`, overflow cropped from the centre; needs both.' },
      q: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 85, description: 'Quality (JPEG, WebP, AVIF).' },
      fmt: { type: 'string', enum: ['jpeg', 'png', 'webp', 'avif', 'auto'], description: 'Output format; default the stored one. `auto`: AVIF or WebP when `Accept` names them.' },
      enlarge: { type: 'string', enum: ['1', 'true'], description: 'Allow `w`/`h` beyond the original size, up to `MEDIA_MAX_ENLARGED_PIXELS` pixels (or the original\'s own count, when larger); beyond that 400 naming `w`/`h`.' },
      sig: { type: 'string', maxLength: 128, description: 'Signature of the transform parameters, from `POST .../media/{media_id}:sign_transform`; required when the website\'s setting `media.transforms.require_signature` is true, ignored otherwise.' },
    },
  };
  const schema = {
    operationId: 'GetPublicMedia',
    summary: 'Read a media (public)',
    description:
      'Unauthenticated. Without parameters: the stored bytes. With `w`, `h`, `crop`, `q`, `fmt`, `enlarge` (images only; 400 on other files): a variant, made once and served from storage afterwards. ' +
      'Invalid values answer 400 INVALID_ARGUMENT naming the parameter; unknown parameters are ignored (cache busters). Every answer carries an `ETag`; `If-None-Match` answers 304. ' +
      'A missing, deleted or other website\'s media answers 404. Answers carry `Content-Security-Policy: sandbox` and `nosniff`, so an uploaded SVG cannot run script. ' +
      'A variant not made yet (cold) costs its client address one token per started 4 MP of output, from a bucket of `MEDIA_COLD_TRANSFORMS_PER_MINUTE` refilled at that rate; an empty bucket answers 429 RESOURCE_EXHAUSTED with `Retry-After` and RETRY_INFO. Stored variants and originals are never limited. ' +
      'Where the website requires signatures, transform parameters without `sig` answer 403 PERMISSION_DENIED (reason `SIGNATURE_REQUIRED`), with a `sig` that does not sign them 403 (reason `SIGNATURE_INVALID`).',
    tags: ['media'],
    // Public by design (SPEC 4.5): no credentials.
    security: [],
    querystring: { ...querystring, additionalProperties: true },
    headers: { type: 'object', properties: { 'If-None-Match': { type: 'string', maxLength: 4096, description: 'Answer 304 without a body when the media still has this etag.' } } },
    response: { 200: binary, 304: new Reply('Not modified.', undefined, { ETag: ETAG_HEADER }), ...errorResponses({ notFound: true }) },
  };
  // Query values are validated by the service (it names the parameter and keeps `1`/`true` text).
  const noValidation = () => () => true;
  app.get(`${deps.prefix}/websites/:website_id/media/:media_id`, {
    validatorCompiler: noValidation,
    schema: routeSchema(app, {
      ...schema,
      params: {
        type: 'object',
        properties: {
          website_id: { type: 'string', maxLength: 256, description: 'Id of the website.' },
          media_id: { type: 'string', maxLength: 256, description: 'Id of the media.' },
        },
        required: ['website_id', 'media_id'],
      },
    }),
    handler,
  });
  // The same read with the media's `filename` last (readable URLs); another name answers 404.
  app.get(`${deps.prefix}/websites/:website_id/media/:media_id/:filename`, {
    validatorCompiler: noValidation,
    schema: routeSchema(app, {
      ...schema,
      operationId: 'GetPublicMediaByFilename',
      summary: 'Read a media by id and filename (public)',
      params: {
        type: 'object',
        properties: {
          website_id: { type: 'string', maxLength: 256, description: 'Id of the website.' },
          media_id: { type: 'string', maxLength: 256, description: 'Id of the media.' },
          filename: { type: 'string', maxLength: 256, description: 'The media\'s `filename`.' },
        },
        required: ['website_id', 'media_id', 'filename'],
      },
    }),
    handler,
  });
}
