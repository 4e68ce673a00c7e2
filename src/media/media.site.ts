import type { AreaDeps } from '../platform/area.js';
import { ENGINE_PREFIX } from './media.area.js';
import { canonicalTransformQuery, signTransform } from './transform-signature.js';

/** Widths a rendered site offers browsers in `srcset` (never wider than the original). */
export const SITE_IMAGE_WIDTHS = [320, 640, 960, 1280, 1920] as const;

/** An image of the media library as a site page embeds it. */
export interface SiteImage {
  /** Transformed to the largest offered width (or the original when it is smaller). */
  src: string;
  /** `url 320w, url 640w, …`; empty for files that are not transformable images. */
  srcset: string;
  width: number | null;
  height: number | null;
  alt: string;
  mimeType: string;
}

const TRANSFORMABLE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif']);

/**
 * Media of one website by id, as `<img src srcset>` through the engine's public transformed read.
 * Every variant URL is signed, so images keep working when the website turns on
 * `media.transforms.require_signature` (a signature is ignored where none is required).
 */
export async function readSiteImages(deps: Pick<AreaDeps, 'database' | 'config'>, websiteId: string, mediaIds: readonly string[]): Promise<Map<string, SiteImage>> {
  const ids = [...new Set(mediaIds.filter(Boolean))];
  const images = new Map<string, SiteImage>();
  if (ids.length === 0) return images;
  const rows = await deps.database.db
    .selectFrom('media')
    .select(['id', 'filename', 'mime_type', 'width', 'height', 'alt_text'])
    .where('website_id', '=', websiteId)
    .where('id', 'in', ids)
    .execute();
  const { publicBaseUrl, mediaSigningSecret } = deps.config;
  for (const row of rows) {
    const base = `${publicBaseUrl}${ENGINE_PREFIX}/websites/${websiteId}/media/${row.id}/${row.filename}`;
    const width = row.width === null || row.width === undefined ? null : Number(row.width);
    const variant = (w: number) => {
      const canonical = canonicalTransformQuery({ w: String(w) });
      return `${base}?${canonical}&sig=${signTransform(mediaSigningSecret, websiteId, row.id, canonical)}`;
    };
    const widths = TRANSFORMABLE.has(row.mime_type) && width ? SITE_IMAGE_WIDTHS.filter((w) => w < width) : [];
    images.set(row.id, {
      src: widths.length ? variant(widths[widths.length - 1]) : base,
      srcset: widths.length ? [...widths.map((w) => `${variant(w)} ${w}w`), `${base} ${width}w`].join(', ') : '',
      width,
      height: row.height === null || row.height === undefined ? null : Number(row.height),
      alt: row.alt_text ?? '',
      mimeType: row.mime_type,
    });
  }
  return images;
}
