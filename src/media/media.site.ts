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
  /** A signed variant with other parameters (a square PNG favicon, a 1200 px social image); the original where none applies. */
  variant(params: { w?: number; h?: number; crop?: boolean; fmt?: 'png' | 'jpeg' | 'webp' | 'auto' }): string;
}

const TRANSFORMABLE = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif']);

/** Raster formats worth re-encoding as AVIF or WebP for browsers that take them (`fmt=auto`, negotiated by `Accept`); GIF keeps its animation. */
const MODERN_FORMAT_SOURCES = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/avif']);

/**
 * Media of one website by id, as `<img src srcset>` through the engine's public transformed read:
 * each width in `fmt=auto` (AVIF or WebP by the browser's `Accept`, `Vary: Accept`), so one `<img>`
 * serves modern formats without a `<picture>` per format. Every variant URL is signed, so images
 * keep working when the website turns on `media.transforms.require_signature`.
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
    const transformable = TRANSFORMABLE.has(row.mime_type);
    const modern = MODERN_FORMAT_SOURCES.has(row.mime_type);
    const signed = (params: Parameters<SiteImage['variant']>[0]) => {
      if (!transformable) return base;
      const canonical = canonicalTransformQuery({
        ...(params.w ? { w: String(params.w) } : {}),
        ...(params.h ? { h: String(params.h) } : {}),
        ...(params.crop ? { crop: '1' } : {}),
        ...(params.fmt && (params.fmt !== 'auto' || modern) ? { fmt: params.fmt } : {}),
      });
      return canonical ? `${base}?${canonical}&sig=${signTransform(mediaSigningSecret, websiteId, row.id, canonical)}` : base;
    };
    const variant = (w: number) => signed({ w, fmt: 'auto' });
    const widths = transformable && width ? SITE_IMAGE_WIDTHS.filter((w) => w < width) : [];
    images.set(row.id, {
      src: widths.length ? variant(widths[widths.length - 1]) : modern ? signed({ fmt: 'auto' }) : base,
      srcset: widths.length ? [...widths.map((w) => `${variant(w)} ${w}w`), `${modern ? signed({ fmt: 'auto' }) : base} ${width}w`].join(', ') : '',
      width,
      height: row.height === null || row.height === undefined ? null : Number(row.height),
      alt: row.alt_text ?? '',
      mimeType: row.mime_type,
      variant: signed,
    });
  }
  return images;
}
