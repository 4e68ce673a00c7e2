import type { AreaDeps } from '../platform/area.js';
import { ENGINE_PREFIX } from './media.area.js';
import { canonicalTransformQuery, signTransform } from './transform-signature.js';
import { siteImageRows } from './media.repo.js';

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
  const rows = await siteImageRows(deps.database.db, websiteId, ids);
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

const ATTR_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeAttr = (text: string) => text.replace(/[&<>"']/g, (c) => ATTR_ESCAPES[c]);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `sizes` of an image in a column of text (the design's `--measure`, 42rem at most). */
const CONTENT_IMAGE_SIZES = '(min-width: 44rem) 42rem, 100vw';

/**
 * Images of the website's own media library inside stored content (`<img src=".../media/{id}…">`
 * an editor placed) made responsive like the design's own: `srcset` of signed `fmt=auto` variants,
 * `sizes` of the text column, the media's width and height (no layout shift) unless the tag sets
 * them, `loading="lazy"`, and the media's `alt_text` where the tag has no alt. Other images, and
 * media of other websites, are left as they are. The HTML is sanitised already; only attributes
 * built here from the media row are added.
 */
export async function responsiveContentImages(deps: Pick<AreaDeps, 'database' | 'config'>, websiteId: string, html: string): Promise<string> {
  if (!html.includes('<img')) return html;
  const media = new RegExp(`^(?:${escapeRegExp(deps.config.publicBaseUrl)})?${escapeRegExp(`${ENGINE_PREFIX}/websites/${websiteId}/media/`)}([A-Za-z0-9_-]{1,128})(?:[/?#]|$)`);
  const tags = [...html.matchAll(/<img\b[^>]*>/g)].map((m) => ({ tag: m[0], id: media.exec(/\ssrc="([^"]*)"/.exec(m[0])?.[1]?.replace(/&amp;/g, '&') ?? '')?.[1] }));
  const ids = tags.flatMap((t) => (t.id ? [t.id] : []));
  if (ids.length === 0) return html;
  const images = await readSiteImages(deps, websiteId, ids);
  return html.replace(/<img\b[^>]*>/g, (tag) => {
    const id = tags.find((t) => t.tag === tag)?.id;
    const image = id ? images.get(id) : undefined;
    if (!image || image.srcset === '') return tag;
    const has = (name: string) => new RegExp(`\\s${name}=`).test(tag);
    const add = [
      ` srcset="${escapeAttr(image.srcset)}"`,
      has('sizes') ? '' : ` sizes="${CONTENT_IMAGE_SIZES}"`,
      !has('width') && !has('height') && image.width && image.height ? ` width="${image.width}" height="${image.height}"` : '',
      has('loading') ? '' : ' loading="lazy"',
      has('decoding') ? '' : ' decoding="async"',
      has('alt') ? '' : ` alt="${escapeAttr(image.alt)}"`,
    ].join('');
    // The tag's own srcset (if any) gives way to the signed variants.
    return tag.replace(/\ssrcset="[^"]*"/, '').replace(/\s*\/?>$/, `${add}>`);
  });
}
