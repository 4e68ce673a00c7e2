import { open } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import sharp from 'sharp';
import { InvalidArgument } from '../platform/errors.js';

// libvips' operation cache holds decoded images and open files between calls; variants are
// produced once and stored, so the cache only costs memory (and keeps deleted files open).
sharp.cache(false);

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
  const detected = await fileTypeFromFile(path);
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
    metadata = await sharp(path, { limitInputPixels: false }).metadata();
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
    await sharp(path, { limitInputPixels: maxPixels, failOn: 'truncated' }).resize(32, 32, { fit: 'inside' }).raw().toBuffer();
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

/**
 * Produces one variant: EXIF orientation applied, fitted inside `width`×`height` (never enlarged
 * unless `enlarge`), or with `crop` exactly `width`×`height` from the centre.
 */
export async function transformImage(input: Buffer, spec: TransformSpec, maxPixels: number): Promise<Buffer> {
  const animated = spec.format === 'gif' || spec.format === 'webp';
  let pipeline = sharp(input, { limitInputPixels: maxPixels, animated }).rotate();
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
      pipeline = pipeline.jpeg({ quality: spec.quality, mozjpeg: false });
      break;
    case 'webp':
      pipeline = pipeline.webp({ quality: spec.quality });
      break;
    case 'avif':
      // Effort 2 of 9: AVIF's default effort costs seconds per image on small machines.
      pipeline = pipeline.avif({ quality: spec.quality, effort: 2 });
      break;
    case 'png':
      // PNG is lossless: `q` does not apply.
      pipeline = pipeline.png();
      break;
    case 'gif':
      pipeline = pipeline.gif();
      break;
    case 'tiff':
      pipeline = pipeline.tiff({ quality: spec.quality });
      break;
  }
  return pipeline.toBuffer();
}
