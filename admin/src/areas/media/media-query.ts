/** Reading the media library (shared by the library screen and the image picker). */
import { data, type Schemas, type SignedInClient } from '@siteplatform/sdk';

export type Media = Schemas['Media'];
export type MediaFolder = Schemas['MediaFolder'];

export const mediaKey = (websiteId: string) => ['media', websiteId] as const;

/** The AIP-160 filter of a library view: a folder (null: the root, undefined: everywhere), text in the name or alt text, images only. */
export function mediaFilter(opts: { folderId?: string | null; search?: string; imagesOnly?: boolean }): string | undefined {
  const terms: string[] = [];
  if (opts.folderId === null) terms.push('folder_id = null');
  else if (opts.folderId) terms.push(`folder_id = ${JSON.stringify(opts.folderId)}`);
  if (opts.imagesOnly) terms.push('is_image = true');
  const text = opts.search?.trim();
  if (text) terms.push(`original_filename:${JSON.stringify(text)}`);
  return terms.length ? terms.join(' AND ') : undefined;
}

export async function listMedia(api: SignedInClient, websiteId: string, filter: string | undefined, pageToken?: string) {
  return data(
    api.GET('/tenant-api/v1/websites/{website_id}/media', {
      params: { path: { website_id: websiteId }, query: { page_size: 60, ...(filter ? { filter } : {}), ...(pageToken ? { page_token: pageToken } : {}) } as never },
    }),
  );
}

/** A thumbnail of an image: the public transformed read fitted in a box. */
export function thumbnailUrl(media: Media, size = 320): string | undefined {
  if (!media.url) return undefined;
  if (!media.is_image) return undefined;
  const sep = media.url.includes('?') ? '&' : '?';
  return `${media.url}${sep}w=${size}&h=${size}`;
}
