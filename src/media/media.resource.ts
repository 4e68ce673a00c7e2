import { randomBytes } from 'node:crypto';
import type { RequestContext } from '../platform/auth/context.js';
import { read, write } from '../platform/auth/rights.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { mediaByFilename } from './media.repo.js';

/** Prefix of every blob of one media: its original and all its variants (Delete removes it whole). */
export function mediaBlobPrefix(websiteId: string, mediaId: string): string {
  return `websites/${websiteId}/media/${mediaId}`;
}

/** The stored original of a media. */
export function originalKey(websiteId: string, mediaId: string): string {
  return `${mediaBlobPrefix(websiteId, mediaId)}/original`;
}

/** `name.ext` → `name-x7k2q9.ext`: a collision on `filename` gets a random suffix instead of a counter scan. */
function withSuffix(filename: string): string {
  const dot = filename.lastIndexOf('.');
  const suffix = randomBytes(5).toString('hex').slice(0, 6);
  return dot > 0 ? `${filename.slice(0, dot)}-${suffix}${filename.slice(dot)}` : `${filename}-${suffix}`;
}

export interface MediaDeps {
  /** Removes every blob under a prefix; runs after the delete commits. */
  deleteBlobs(prefix: string): Promise<void>;
  /** Absolute URL of the public read of a media. */
  publicUrl(websiteId: string, mediaId: string, filename: string): string;
  /** `:sign_transform`: the signed public URL of one variant (media.service.ts). */
  signTransform(ctx: RequestContext, params: Record<string, string>, body: Record<string, unknown>): Promise<{ url: string }>;
}

/**
 * Media of a website's library. Create is the multipart upload (`media.routes.ts`): everything
 * but `alt_text`, `title` and `folder_id` is read off the file. The engine serves List, Get,
 * Update and Delete from this declaration.
 */
export function mediaResource(deps: MediaDeps): ResourceDecl {
  const output = (description: string, type: 'string' | 'integer' | 'boolean' = 'string') => ({ type, description, behavior: ['OUTPUT_ONLY'] as const });
  return {
    collection: 'media',
    singular: 'Media',
    table: 'media',
    description:
      'A file of the website\'s media library. Uploaded with `POST .../media` as `multipart/form-data` (the file in the part `file`; `alt_text`, `title`, `folder_id` as plain parts); served publicly, transformed on the fly, at `url`.',
    collectionPath: 'websites/{website_id}/media',
    itemPath: 'websites/{website_id}/media/{media_id}',
    fields: {
      filename: { ...output('Stored name: URL-safe, unique in the website, derived from the uploaded name; the last segment of `url`.'), notNull: true },
      original_filename: { ...output('Name the file arrived with.'), notNull: true },
      mime_type: { ...output('Detected from the bytes on upload (never from the name or the client\'s Content-Type); `application/octet-stream` when unknown.'), notNull: true },
      storage_path: output('Internal bookkeeping: key of the original in blob storage.'),
      file_size: output('Bytes of the stored original.', 'integer'),
      is_image: { ...output('Whether the transforms apply (JPEG, PNG, WebP, GIF, AVIF, TIFF that decode whole). SVG is stored but never transformed.', 'boolean'), notNull: true },
      width: output('Pixels of the original after EXIF orientation; only when `is_image`.', 'integer'),
      height: output('Pixels of the original after EXIF orientation; only when `is_image`.', 'integer'),
      alt_text: { type: 'string', description: 'Alternative text for the image.', maxLength: 1000, trim: true },
      title: { type: 'string', description: 'Title of the media.', maxLength: 255, trim: true },
      folder_id: { type: 'string', description: 'The `media_folders` entry holding it (a folder of the same website); absent at the library root (`filter=folder_id = null`).', maxLength: 64, refersTo: { table: 'media_folders', what: 'a folder' } },
      url: { type: 'string', description: 'Public address of the file (no authentication); add `w`, `h`, `crop`, `q`, `fmt` to transform images (where the website requires signatures, take the URL from `:sign_transform`).', behavior: ['OUTPUT_ONLY'], column: false },
    },
    filterable: ['alt_text', 'create_time', 'filename', 'folder_id', 'is_image', 'mime_type', 'original_filename', 'title'],
    sortable: ['create_time', 'filename', 'folder_id', 'is_image', 'mime_type', 'original_filename'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'update', 'delete'],
    options: { validateOnly: true },
    rights: { read: read('website.media'), write: write('website.media') },
    hooks: {
      async beforeCreate(ctx, row) {
        // A taken name gets a random suffix; a concurrent upload taking it meanwhile fails on the
        // unique index and the upload retries.
        const wanted = row.filename;
        for (let attempt = 0; ; attempt++) {
          const taken = await mediaByFilename(ctx.trx, row.website_id, row.filename);
          if (!taken) break;
          if (attempt >= 5) throw new Error(`no free filename for ${row.filename}`);
          row.filename = withSuffix(wanted);
        }
      },
      beforeDelete(ctx, row) {
        ctx.afterCommit(() => deps.deleteBlobs(mediaBlobPrefix(row.website_id, row.id)));
      },
      present(row, resource) {
        resource.url = deps.publicUrl(row.website_id, row.id, row.filename);
      },
    },
    customMethods: [
      {
        verb: 'sign_transform',
        on: 'item',
        access: 'read',
        summary: 'Sign the public URL of one variant of a Media',
        description:
          'Answers `{url}`: the public read of this media with the given transform parameters in canonical order and their `sig` ' +
          '(HMAC over the website id, media id and parameters under the platform key `MEDIA_SIGNING_SECRET`). A website whose setting ' +
          '`media.transforms.require_signature` is true serves variants only for such URLs; the original needs none. The parameters are ' +
          'checked as the public read checks them (INVALID_ARGUMENT naming the field): ranges, `crop` needs `w` and `h`, images only, ' +
          'enlargements within `MEDIA_MAX_ENLARGED_PIXELS`. A signature does not expire; it stops working when the key changes.',
        body: {
          properties: {
            w: { type: 'integer', format: 'int32', minimum: 1, maximum: 4096, description: 'Width: the image is fitted inside the `w`×`h` box.' },
            h: { type: 'integer', format: 'int32', minimum: 1, maximum: 4096, description: 'Height.' },
            crop: { type: 'boolean', description: 'Exactly `w`×`h`, overflow cropped from the centre; needs both.' },
            enlarge: { type: 'boolean', description: 'Allow `w`/`h` beyond the original size.' },
            q: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, description: 'Quality, default 85 (JPEG, WebP, AVIF).' },
            fmt: { type: 'string', enum: ['jpeg', 'png', 'webp', 'avif', 'auto'], description: 'Output format; default the stored one. `auto`: AVIF or WebP when the client\'s `Accept` names them.' },
          },
        },
        response: {
          type: 'object',
          title: 'SignMediaTransformResponse',
          properties: { url: { type: 'string', maxLength: 2048, description: 'Absolute public URL of the variant, `sig` last.' } },
          required: ['url'],
        },
        handle: (ctx, call) => deps.signTransform(ctx, call.params, call.body),
      },
    ],
  };
}
