import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { RequestContext } from '../platform/auth/context.js';
import { Semaphore, SingleFlight } from '../platform/concurrency.js';
import type { CompiledRow, Database } from '../platform/db/database.js';
import { AlreadyExists, InvalidArgument, NotFound, PermissionDenied, type FieldViolation } from '../platform/errors.js';
import { addressKey } from '../platform/http/rate-limit.js';
import type { Limiter } from '../platform/limits/limits.js';
import type { FieldDecl } from '../platform/resource/declaration.js';
import { etagMatches, type Resource, type ResourceService } from '../platform/resource/engine.js';
import { newId, PATH_ID_PATTERN } from '../platform/resource/ids.js';
import type { BlobStore } from '../platform/storage/blobs.js';
import { decodeSettingValue, descriptorOf, MEDIA_REQUIRE_SIGNATURE_PATH } from '../settings/index.js';
import { compilePublicLookup } from './media.repo.js';
import { checkEnlargement, CONTENT_TYPE_OF, inspectFile, storedFormatOf, transformImage, type OutputFormat, type TransformSpec } from './images.js';
import { mediaBlobPrefix, originalKey } from './media.resource.js';
import { canonicalTransformQuery, signTransform, TRANSFORM_PARAMS, transformSignatureMatches, type TransformParam } from './transform-signature.js';

/** Limits of the media area (`Config.media`, documented in docs/configuration.md). */
export type MediaLimits = Config['media'];

/** Variants larger than this are always streamed from blob storage. */
const MEMORY_CACHE_ENTRY_MAX = 512 * 1024;

/**
 * Least-recently-used variant bytes by blob key, bounded in total size. Variant bytes under one key
 * never change (the key names the media and every parameter), so an entry is never stale; a
 * deleted media is refused by the row lookup every read still does, and its entries age out.
 */
class VariantMemoryCache {
  private readonly entries = new Map<string, Buffer>();
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Buffer | undefined {
    const bytes = this.entries.get(key);
    if (bytes) {
      this.entries.delete(key);
      this.entries.set(key, bytes);
    }
    return bytes;
  }

  set(key: string, bytes: Buffer): void {
    if (bytes.length > MEMORY_CACHE_ENTRY_MAX || bytes.length > this.maxBytes || this.entries.has(key)) return;
    this.entries.set(key, bytes);
    this.total += bytes.length;
    for (const [oldest, old] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.total -= old.length;
    }
  }
}

/** A file part already streamed to a temporary file by the route. */
export interface ReceivedFile {
  path: string;
  size: number;
  /** As the client named it. */
  filename: string;
}

/** An answer of the public read, transport-free: the route copies it onto the reply. */
export interface PublicAnswer {
  status: 200 | 304;
  headers: Record<string, string>;
  body?: Readable | Buffer;
}

const PLAIN_PARTS = ['alt_text', 'title', 'folder_id'] as const;
const MAX_DIMENSION = 4096;
/**
 * A cold variant costs one token of its address's bucket per started 4 MP it outputs (all frames):
 * typical web variants cost 1, a 4096×4096 one 4, so the limit bounds pixels made, not just requests.
 */
const COST_UNIT_PIXELS = 2048 * 2048;
const DEFAULT_QUALITY = 85;
const FORMATS = ['jpeg', 'png', 'webp', 'avif', 'auto'] as const;

/**
 * Refuses names that are paths or carry control characters (`../../x`, `a/b`, `C:\x`): a client
 * that sends one is not a browser sending a file's name.
 */
export function checkOriginalFilename(name: string): void {
  if (name.length === 0) throw InvalidArgument.field('file', 'the file part needs a filename');
  if (name.length > 255) throw InvalidArgument.field('file', 'the filename is longer than 255 characters');
  // eslint-disable-next-line no-control-regex
  if (/[/\\\u0000-\u001f\u007f]/.test(name) || name === '.' || name === '..') {
    throw InvalidArgument.field('file', 'the filename must be a plain name, not a path');
  }
}

/**
 * A URL-safe stored name from the uploaded one: ASCII letters, digits, `-`, `_`, lower case, the
 * extension of the detected type (the client's when the type is unknown).
 */
export function urlSafeFilename(original: string, detectedExtension: string | undefined): string {
  const dot = original.lastIndexOf('.');
  const stem = dot > 0 ? original.slice(0, dot) : original;
  const givenExtension = dot > 0 ? original.slice(dot + 1).toLowerCase() : '';
  const slug = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^[-_]+|[-_]+$/g, '');
  const base = slug(stem).slice(0, 100).replace(/[-_]+$/, '') || 'file';
  const extension = detectedExtension ?? (/^[a-z0-9]{1,10}$/.test(givenExtension) ? givenExtension : undefined);
  return extension ? `${base}.${extension}` : base;
}

/** The `alt_text`, `title`, `folder_id` parts, checked as the declaration states them. */
function plainParts(fields: Record<string, string>, declared: Record<string, FieldDecl>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const violations: FieldViolation[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (!(PLAIN_PARTS as readonly string[]).includes(name)) {
      violations.push({ field: name, description: 'is not a known part; send `file`, `alt_text`, `title`, `folder_id`' });
      continue;
    }
    const max = declared[name].maxLength;
    if (max !== undefined && value.length > max) violations.push({ field: name, description: `must be at most ${max} characters` });
    // An empty folder_id is the root, as a form with no folder chosen sends it.
    body[name] = name === 'folder_id' && value === '' ? null : value;
  }
  if (violations.length > 0) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
  return body;
}

/** One transform request: parsed, or why not. Query values arrive as strings (arrays when repeated). */
export function parseTransform(query: Record<string, unknown>): Partial<Record<TransformParam, string>> {
  const out: Record<string, string> = {};
  for (const name of TRANSFORM_PARAMS) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw InvalidArgument.field(name, 'must be given once');
    out[name] = value;
  }
  const integer = (name: string, min: number, max: number) => {
    const text = out[name];
    if (text === undefined) return;
    if (!/^\d{1,5}$/.test(text) || Number(text) < min || Number(text) > max) throw InvalidArgument.field(name, `must be an integer from ${min} to ${max}`);
  };
  const flag = (name: string) => {
    if (out[name] !== undefined && out[name] !== '1' && out[name] !== 'true') throw InvalidArgument.field(name, 'must be `1` or `true`');
  };
  integer('w', 1, MAX_DIMENSION);
  integer('h', 1, MAX_DIMENSION);
  integer('q', 1, 100);
  flag('crop');
  flag('enlarge');
  if (out.crop !== undefined && (out.w === undefined || out.h === undefined)) throw InvalidArgument.field('crop', 'needs both `w` and `h`');
  if (out.fmt !== undefined && !(FORMATS as readonly string[]).includes(out.fmt)) throw InvalidArgument.field('fmt', `must be one of ${FORMATS.join(', ')}`);
  return out;
}

/** `fmt=auto`: the best format the client's `Accept` names, else the stored one. */
function negotiate(accept: string | undefined, stored: OutputFormat): OutputFormat {
  const types = (accept ?? '').toLowerCase();
  if (types.includes('image/avif')) return 'avif';
  if (types.includes('image/webp')) return 'webp';
  return stored;
}

/** Reads a blob whole; only ever for originals, bounded by the upload limit. */
async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The columns the public read needs, and the website's signature setting. */
interface PublicRow {
  id: string;
  website_id: string;
  filename: string;
  mime_type: string;
  storage_path: string;
  file_size: number;
  is_image: boolean;
  width: number | null;
  height: number | null;
  create_time: number;
  requireSignature: boolean;
}

/** What the public read needs of the request besides its query (transport-free). */
export interface PublicRequest {
  accept?: string;
  ifNoneMatch?: string;
  /** The last path segment, when the URL names the file. */
  filename?: string;
  /** The client's address as the platform trusts it (TRUST_PROXY); cold variants are limited per address. */
  clientAddress: string;
}

/** Cost in tokens of a cold variant of `pixels` (all frames). */
const costOf = (pixels: number) => Math.max(1, Math.ceil(pixels / COST_UNIT_PIXELS));

export interface MediaServiceDeps {
  database: Database;
  blobs: BlobStore;
  limits: MediaLimits;
  /**
   * Cold transforms per client address (MEDIA_COLD_TRANSFORMS_PER_MINUTE, a token bucket of a
   * minute): shared by every process on PostgreSQL (src/platform/limits/).
   */
  coldTransforms: Limiter;
  /** HMAC key of signed transform URLs (`MEDIA_SIGNING_SECRET`). */
  signingSecret: Buffer;
  /** Absolute URL of the public read of a media (with its filename). */
  publicUrl(websiteId: string, mediaId: string, filename: string): string;
  logger: FastifyBaseLogger;
  /** The engine's service of the `media` declaration (filled once every area is built). */
  media: () => ResourceService;
}

/** Uploads and the public transformed read. The standard methods are the engine's. */
export function createMediaService(deps: MediaServiceDeps) {
  const { database, blobs, limits } = deps;
  const transforms = new Semaphore(limits.transformConcurrency, limits.transformQueue);
  const variantsInFlight = new SingleFlight<Buffer>();
  const hot = new VariantMemoryCache(limits.memoryCacheBytes);
  const coldByAddress = deps.coldTransforms;
  const signatureByDefault = descriptorOf(MEDIA_REQUIRE_SIGNATURE_PATH)!.default_value === true;

  // The public read's lookup runs as a prepared statement (compiled once, placeholders for the
  // ids); the website's signature setting comes along from its primary key, so it costs no query.
  const lookupQuery = compilePublicLookup(database.db);
  const lookupStatement = database.prepare<CompiledRow<typeof lookupQuery>>(lookupQuery.sql);
  const lookup = (websiteId: string, mediaId: string) =>
    lookupStatement(lookupQuery.parameters.map((p) => (p === '\u0000website' ? websiteId : p === '\u0000media' ? mediaId : p)));

  async function findPublic(websiteId: string, mediaId: string): Promise<PublicRow> {
    if (!PATH_ID_PATTERN.test(websiteId) || !PATH_ID_PATTERN.test(mediaId)) throw new NotFound(`media ${mediaId}`);
    const [row] = await lookup(websiteId, mediaId);
    if (!row) throw new NotFound(`media ${mediaId}`);
    const required = decodeSettingValue(database.dialect, row.require_signature);
    return {
      id: row.id,
      website_id: row.website_id,
      filename: row.filename,
      mime_type: row.mime_type,
      storage_path: row.storage_path,
      file_size: Number(row.file_size),
      is_image: row.is_image === true || row.is_image === 1,
      width: row.width === null ? null : Number(row.width),
      height: row.height === null ? null : Number(row.height),
      create_time: Number(row.create_time),
      requireSignature: required === undefined ? signatureByDefault : required === true,
    };
  }

  /**
   * Where a website requires signatures, only parameter sets signed by `:sign_transform` are made
   * or served. A website that does not require them ignores `sig`, so rotating the key never
   * breaks the images of sites that never asked for signatures.
   */
  function checkSignature(row: PublicRow, wanted: Partial<Record<TransformParam, string>>, sig: unknown): void {
    if (!row.requireSignature) return;
    if (sig === undefined) {
      throw new PermissionDenied('sig: this website serves only signed variants; sign the parameters with :sign_transform', 'SIGNATURE_REQUIRED', [
        { field: 'sig', description: 'is required for transform parameters on this website' },
      ]);
    }
    if (typeof sig !== 'string') throw InvalidArgument.field('sig', 'must be given once');
    if (!transformSignatureMatches(deps.signingSecret, row.website_id, row.id, canonicalTransformQuery(wanted), sig)) {
      throw new PermissionDenied('sig: does not sign these parameters of this media', 'SIGNATURE_INVALID', [
        { field: 'sig', description: 'does not match the transform parameters and media' },
      ]);
    }
  }

  /** Makes one variant from the original (inside a transform slot). */
  async function makeVariant(row: PublicRow, spec: TransformSpec) {
    const original = await blobs.get(row.storage_path);
    if (!original) throw new Error(`original of media ${row.id} is missing from blob storage (${row.storage_path})`);
    const input = await readAll(original.stream);
    return transformImage(input, spec, limits);
  }

  /** Stores a variant once it was answered; a Delete that committed meanwhile gets its prefix removed again. */
  async function storeVariant(row: PublicRow, key: string, format: OutputFormat, bytes: Buffer): Promise<void> {
    try {
      await blobs.put(key, bytes, { contentType: CONTENT_TYPE_OF[format] });
      const [still] = await lookup(row.website_id, row.id);
      if (!still) await blobs.deletePrefix(mediaBlobPrefix(row.website_id, row.id));
    } catch (err) {
      // The next request for this variant makes it again.
      deps.logger.error({ err, key }, 'could not store a media variant');
    }
  }

  return {
    transforms,

    /**
     * Stores an upload: detects the type from the bytes, reads image dimensions, writes the
     * original to blob storage, then the row. A failed insert removes the blob again.
     */
    async upload(ctx: RequestContext, params: Record<string, string>, file: ReceivedFile | undefined, fields: Record<string, string>): Promise<Resource> {
      const media = deps.media();
      const body = plainParts(fields, media.decl.fields);
      if (!file) throw InvalidArgument.field('file', 'is required: send the file in the multipart part `file`');
      checkOriginalFilename(file.filename);
      if (file.size === 0) throw InvalidArgument.field('file', 'is empty');
      // The decode check shares the transform slots: a burst of uploads cannot decode without bound.
      const facts = await transforms.run(() => inspectFile(file.path, limits.maxPixels));

      const id = newId(ctx.now);
      const key = originalKey(params.website_id, id);
      await blobs.put(key, createReadStream(file.path), { contentType: facts.mimeType });
      try {
        for (let attempt = 1; ; attempt++) {
          try {
            const { resource } = await media.create(ctx, params, body, {
              serverColumns: {
                id,
                filename: urlSafeFilename(file.filename, facts.extension),
                original_filename: file.filename,
                mime_type: facts.mimeType,
                storage_path: key,
                file_size: file.size,
                is_image: database.dialect.bool(facts.isImage),
                width: facts.width ?? null,
                height: facts.height ?? null,
              },
            });
            return resource;
          } catch (err) {
            // Another upload took the same filename between our check and our insert: pick again.
            if (err instanceof AlreadyExists && attempt < 3) continue;
            throw err;
          }
        }
      } catch (err) {
        await blobs.delete(key).catch((cleanup) => deps.logger.error({ err: cleanup, key }, 'could not remove the blob of a failed upload'));
        throw err;
      }
    },

    /**
     * `GET /engine-api/v1/websites/{w}/media/{id}`: the stored bytes, or a variant (made once,
     * stored, served from storage afterwards). Unauthenticated by design, so what a variant may
     * cost is bounded: enlargements by pixels (MEDIA_MAX_ENLARGED_PIXELS), cold variants per
     * client address (MEDIA_COLD_TRANSFORMS_PER_MINUTE), and where the website asks for it, only
     * signed parameter sets.
     */
    async read(websiteId: string, mediaId: string, query: Record<string, unknown>, request: PublicRequest): Promise<PublicAnswer> {
      const wanted = parseTransform(query);
      const row = await findPublic(websiteId, mediaId);
      if (request.filename !== undefined && request.filename !== row.filename) throw new NotFound(`media ${mediaId}/${request.filename}`);
      const common: Record<string, string> = {
        'cache-control': `public, max-age=${limits.cacheMaxAgeSeconds}`,
        'x-content-type-options': 'nosniff',
        // Whatever was uploaded (SVG, XML), nothing it carries runs on the platform's origin.
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
        'cross-origin-resource-policy': 'cross-origin',
      };
      const version = `${row.id}.${row.create_time.toString(36)}`;
      const transformNames = Object.keys(wanted);

      if (transformNames.length === 0) {
        const etag = `"${version}"`;
        if (request.ifNoneMatch && etagMatches(request.ifNoneMatch, etag.slice(1, -1))) return { status: 304, headers: { ...common, etag } };
        const original = await blobs.get(row.storage_path);
        if (!original) throw new Error(`original of media ${row.id} is missing from blob storage (${row.storage_path})`);
        return {
          status: 200,
          headers: { ...common, etag, 'content-type': row.mime_type, 'content-length': String(original.size) },
          body: original.stream,
        };
      }

      const stored = row.is_image ? storedFormatOf(row.mime_type) : undefined;
      if (!stored) throw InvalidArgument.field(transformNames[0], 'transforms apply to images only, and this media is not one');
      checkSignature(row, wanted, query.sig);
      const format = wanted.fmt === 'auto' ? negotiate(request.accept, stored) : ((wanted.fmt as OutputFormat | undefined) ?? stored);
      const lossless = format === 'png' || format === 'gif';
      const spec: TransformSpec = {
        width: wanted.w ? Number(wanted.w) : undefined,
        height: wanted.h ? Number(wanted.h) : undefined,
        crop: wanted.crop !== undefined,
        enlarge: wanted.enlarge !== undefined,
        quality: lossless ? 100 : wanted.q ? Number(wanted.q) : DEFAULT_QUALITY,
        format,
      };
      // Every image row has its oriented size (upload); a frame count only the original knows.
      const planned = checkEnlargement({ width: row.width ?? 1, height: row.height ?? 1 }, 1, spec, limits.maxEnlargedPixels);
      // One name per distinct output: parameters that change nothing (q of a PNG) do not split the cache.
      const variant = `w${spec.width ?? 0}h${spec.height ?? 0}${spec.crop ? 'c' : ''}${spec.enlarge ? 'e' : ''}${lossless ? '' : `q${spec.quality}`}.${format}`;
      const etag = `"${version}.${variant}"`;
      const answerHeaders: Record<string, string> = { ...common, etag, 'content-type': CONTENT_TYPE_OF[format] };
      if (wanted.fmt === 'auto') answerHeaders.vary = 'Accept';
      if (request.ifNoneMatch && etagMatches(request.ifNoneMatch, etag.slice(1, -1))) return { status: 304, headers: answerHeaders };

      const key = `${mediaBlobPrefix(row.website_id, row.id)}/variants/${variant}`;
      const remembered = hot.get(key);
      if (remembered) return { status: 200, headers: { ...answerHeaders, 'content-length': String(remembered.length) }, body: remembered };
      const kept = await blobs.get(key);
      if (kept) {
        if (kept.size > MEMORY_CACHE_ENTRY_MAX || limits.memoryCacheBytes === 0) {
          return { status: 200, headers: { ...answerHeaders, 'content-length': String(kept.size) }, body: kept.stream };
        }
        const bytes = await readAll(kept.stream);
        hot.set(key, bytes);
        return { status: 200, headers: { ...answerHeaders, 'content-length': String(bytes.length) }, body: bytes };
      }
      // Cold: the address that starts the work pays for it (joining a variant in the making is free).
      const address = addressKey(request.clientAddress);
      const plannedCost = costOf(planned.width * planned.height);
      if (!variantsInFlight.has(key)) await coldByAddress.hit(address, Date.now(), plannedCost);
      // Made once per key at a time; answered as soon as it is made, stored right after.
      const bytes = await variantsInFlight.do(key, async () => {
        const made = await transforms.run(() => makeVariant(row, spec));
        // An animation's frames were unknown before decoding: its address pays for them now.
        const extra = costOf(made.width * made.height * made.frames) - plannedCost;
        if (extra > 0) await coldByAddress.charge(address, extra);
        hot.set(key, made.bytes);
        return { value: made.bytes, after: storeVariant(row, key, format, made.bytes) };
      });
      return { status: 200, headers: { ...answerHeaders, 'content-length': String(bytes.length) }, body: bytes };
    },

    /**
     * `POST .../media/{id}:sign_transform`: the public URL of one variant with its `sig`. The
     * parameters are checked as the public read checks them (same fields named), against this
     * media, so a URL that would be refused is never signed.
     */
    async signTransform(ctx: RequestContext, params: Record<string, string>, body: Record<string, unknown>): Promise<{ url: string }> {
      const query: Record<string, string> = {};
      for (const name of TRANSFORM_PARAMS) {
        const value = body[name];
        if (value === undefined || value === false) continue;
        query[name] = value === true ? '1' : String(value);
      }
      // The media first: an id the caller cannot see is NOT_FOUND whatever the body says.
      const media = await deps.media().get(ctx, params);
      const wanted = parseTransform(query);
      if (Object.keys(wanted).length === 0) throw InvalidArgument.field('w', 'name at least one transform parameter; the original needs no signature');
      const stored = media.is_image === true ? storedFormatOf(String(media.mime_type)) : undefined;
      if (!stored) throw InvalidArgument.field(Object.keys(wanted)[0], 'transforms apply to images only, and this media is not one');
      checkEnlargement(
        { width: Number(media.width), height: Number(media.height) },
        1,
        { width: wanted.w ? Number(wanted.w) : undefined, height: wanted.h ? Number(wanted.h) : undefined, crop: wanted.crop !== undefined, enlarge: wanted.enlarge !== undefined },
        limits.maxEnlargedPixels,
      );
      const canonical = canonicalTransformQuery(wanted);
      const sig = signTransform(deps.signingSecret, params.website_id, params.media_id, canonical);
      return { url: `${deps.publicUrl(params.website_id, params.media_id, String(media.filename))}?${canonical}&sig=${sig}` };
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
