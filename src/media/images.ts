import { open } from 'node:fs/promises';
import type sharp from 'sharp';
import { InvalidArgument } from '../platform/errors.js';

// sharp (libvips) and file-type are loaded on first use: some 25 MB of a server that may never
// receive an upload or a transform (idle RSS, issue 24).
let sharpModule: Promise<typeof sharp> | undefined;
export const loadSharp = () =>
  (sharpModule ??= import('sharp').then(({ default: loaded }) => {
    // libvips' operation cache holds decoded images and open files between calls; variants are
    // produced once and stored, so the cache only costs memory (and keeps deleted files open).
    loaded.cache(false);
    return loaded;
  }));

/** Raster formats the transforms apply to, by detected MIME type → sharp's output format. */
const TRANSFORMABLE: Record<string, OutputFormat> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif',
  'image/tiff': 'tiff',
};

/** Formats a variant can be written in. */
export type OutputFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif' | 'tiff';

export const CONTENT_TYPE_OF: Record<OutputFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
  tiff: 'image/tiff',
};

/** What the bytes of an upload are, as far as the platform cares. */
export interface FileFacts {
  mimeType: string;
  /** Canonical extension of the detected type, without dot; undefined when unknown. */
  extension: string | undefined;
  isImage: boolean;
  /** Pixels after EXIF orientation; only for images. */
  width?: number;
  height?: number;
}

/** The stored format of a transformable image, from its MIME type. */
export function storedFormatOf(mimeType: string): OutputFormat | undefined {
  return TRANSFORMABLE[mimeType];
}

/** SVG is XML text, invisible to magic-number sniffing: look for an `<svg` root in the first bytes. */
async function looksLikeSvg(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const text = head.subarray(0, bytesRead).toString('utf8').replace(/^\uFEFF/, '');
    // Optional XML declaration, comments and doctype before the root element.
    return /^\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE\s+svg[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<svg[\s>/]/i.test(text);
  } finally {
    await handle.close();
  }
}

/**
 * Detects what a file is from its bytes (never its name or the client's Content-Type), and for
 * transformable images reads the dimensions after EXIF orientation. An image whose header
 * announces more than `maxPixels` is refused before it is decoded; one that does not decode
 * whole (truncated, corrupt) is kept as a plain file with `isImage` false.
 */
export async function inspectFile(path: string, maxPixels: number): Promise<FileFacts> {
  const detected = await (await import('file-type')).fileTypeFromFile(path);
  // file-type calls an SVG `application/xml` (or nothing, without the XML declaration).
  if ((!detected || detected.mime === 'application/xml') && (await looksLikeSvg(path))) {
    return { mimeType: 'image/svg+xml', extension: 'svg', isImage: false };
  }
  if (!detected) return { mimeType: 'application/octet-stream', extension: undefined, isImage: false };
  const facts: FileFacts = { mimeType: detected.mime, extension: detected.ext, isImage: false };
  if (!TRANSFORMABLE[detected.mime]) return facts;

  let metadata: sharp.Metadata;
  try {
    // Reads the header only; libvips checks the pixel bound before any decoding.
    metadata = await (await loadSharp())(path, { limitInputPixels: false }).metadata();
  } catch {
    return facts;
  }
  const pages = metadata.pages ?? 1;
  const pixels = (metadata.width ?? 0) * (metadata.pageHeight ?? metadata.height ?? 0) * pages;
  if (pixels > maxPixels) {
    throw InvalidArgument.field('file', `the image has ${pixels} pixels; at most ${maxPixels} are accepted`);
  }
  try {
    // A decode at reduced scale (JPEG shrink-on-load) proves the whole image is there, so a
    // truncated file never reaches the transforms as an image.
    await (await loadSharp())(path, { limitInputPixels: maxPixels, failOn: 'truncated' }).resize(32, 32, { fit: 'inside' }).raw().toBuffer();
  } catch {
    return facts;
  }
  const oriented = metadata.autoOrient ?? { width: metadata.width!, height: metadata.height! };
  return { ...facts, isImage: true, width: oriented.width, height: pages > 1 ? (metadata.pageHeight ?? oriented.height) : oriented.height };
}

/** A transform request after validation. */
export interface TransformSpec {
  width?: number;
  height?: number;
  crop: boolean;
  enlarge: boolean;
  quality: number;
  format: OutputFormat;
}

/** What bounds the work of one transform (`Config.media`). */
export interface TransformLimits {
  /** Largest input decoded, pixels of all frames. */
  maxPixels: number;
  /** Most pixels (all frames) of a variant that upscales its original, unless the original has more. */
  maxEnlargedPixels: number;
  /** AVIF encoder effort, 0 to 9. */
  avifEffort: number;
}

/** Pixel size of one frame of a variant, planned from the original's oriented size. */
export interface PlannedSize {
  width: number;
  height: number;
  /** Whether the variant is larger than the original in either dimension. */
  enlarged: boolean;
}

/**
 * The size of one frame of the variant `spec` asks of an `original` (after EXIF orientation), as
 * sharp's `resize` computes it: `crop` is exactly `width`×`height` (scaled to cover); a fit scales
 * to fit inside the box, never up unless `enlarge`. Rounding may differ from sharp's by a pixel;
 * the result bounds work, it does not promise a size.
 */
export function plannedSize(original: { width: number; height: number }, spec: Pick<TransformSpec, 'width' | 'height' | 'crop' | 'enlarge'>): PlannedSize {
  const { width: ow, height: oh } = original;
  if (spec.crop && spec.width && spec.height) {
    return { width: spec.width, height: spec.height, enlarged: spec.width / ow > 1 || spec.height / oh > 1 };
  }
  const scales = [spec.width ? spec.width / ow : Infinity, spec.height ? spec.height / oh : Infinity];
  let scale = Math.min(...scales);
  if (!Number.isFinite(scale)) scale = 1;
  if (!spec.enlarge) scale = Math.min(scale, 1);
  return { width: Math.max(1, Math.round(ow * scale)), height: Math.max(1, Math.round(oh * scale)), enlarged: scale > 1 };
}

/**
 * Refuses a variant that upscales its original to more than `maxEnlargedPixels` pixels (all
 * `frames`), unless the original itself has more: upscaling creates pixels out of nothing, and
 * encoding them is what an enlargement costs (a 16×12 image at 4096×4096 AVIF took seconds).
 * INVALID_ARGUMENT names the dimensions asked.
 */
export function checkEnlargement(original: { width: number; height: number }, frames: number, spec: Pick<TransformSpec, 'width' | 'height' | 'crop' | 'enlarge'>, maxEnlargedPixels: number): PlannedSize {
  const size = plannedSize(original, spec);
  const pixels = size.width * size.height * frames;
  const allowed = Math.max(maxEnlargedPixels, original.width * original.height * frames);
  if (size.enlarged && pixels > allowed) {
    const frameNote = frames > 1 ? ` in ${frames} frames` : '';
    const why = `enlarging this ${original.width}×${original.height} image to ${size.width}×${size.height}${frameNote} makes ${pixels} pixels; an enlarged variant has at most ${allowed}`;
    const fields = [spec.width !== undefined ? 'w' : undefined, spec.height !== undefined ? 'h' : undefined].filter((f): f is string => f !== undefined);
    throw new InvalidArgument(`${fields.join(', ')}: ${why}`, fields.map((field) => ({ field, description: why })));
  }
  return size;
}

/** A variant as made: its bytes and its real size (`frames` > 1 when animated). */
export interface MadeVariant {
  bytes: Buffer;
  width: number;
  height: number;
  frames: number;
}

/**
 * Produces one variant: EXIF orientation applied, fitted inside `width`×`height` (never enlarged
 * unless `enlarge`), or with `crop` exactly `width`×`height` from the centre. Encoder settings are
 * chosen for bounded CPU per output pixel (measured in docs/decisions.md, Media).
 */
export async function transformImage(input: Buffer, spec: TransformSpec, limits: TransformLimits): Promise<MadeVariant> {
  const animated = spec.format === 'gif' || spec.format === 'webp';
  let pipeline = (await loadSharp())(input, { limitInputPixels: limits.maxPixels, animated });
  if (animated && (spec.width || spec.height)) {
    // The stored size is one frame's: every frame of an animation is enlarged, so count them all.
    const metadata = await pipeline.metadata();
    const frames = metadata.pages ?? 1;
    if (frames > 1) checkEnlargement({ width: metadata.width!, height: metadata.pageHeight ?? metadata.height! }, frames, spec, limits.maxEnlargedPixels);
  }
  pipeline = pipeline.rotate();
  if (spec.width || spec.height) {
    pipeline = pipeline.resize({
      width: spec.width,
      height: spec.height,
      fit: spec.crop ? 'cover' : 'inside',
      position: 'centre',
      // SPEC: crop outputs exactly w×h, so it may enlarge; a plain fit only when asked.
      withoutEnlargement: !spec.crop && !spec.enlarge,
    });
  }
  switch (spec.format) {
    case 'jpeg':
      // mozjpeg's trellis quantisation about doubles the CPU of an encode.
      pipeline = pipeline.jpeg({ quality: spec.quality, mozjpeg: false });
      break;
    case 'webp':
      // libwebp's default effort, said out loud: effort 6 cost ~20 % more for the same bytes.
      pipeline = pipeline.webp({ quality: spec.quality, effort: 4, smartSubsample: false });
      break;
    case 'avif':
      // Effort 1 of 9 by default: on a 1600-px photo effort 2 cost 3×, effort 4 28× the CPU, for ±3 % bytes.
      pipeline = pipeline.avif({ quality: spec.quality, effort: limits.avifEffort });
      break;
    case 'png':
      // PNG is lossless: `q` does not apply. Quantising to a palette cost 4× the CPU of an encode.
      pipeline = pipeline.png({ compressionLevel: 6, adaptiveFiltering: false, palette: false });
      break;
    case 'gif':
      // Palette effort 1 of 10: the default 7 cost 30–60 % more for ±6 % bytes.
      pipeline = pipeline.gif({ effort: 1 });
      break;
    case 'tiff':
      pipeline = pipeline.tiff({ quality: spec.quality });
      break;
  }
  const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
  const frames = info.pages ?? 1;
  return { bytes: data, width: info.width, height: frames > 1 ? (info.pageHeight ?? info.height) : info.height, frames };
}
