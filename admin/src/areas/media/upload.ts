/**
 * Media upload with progress: the public `POST /tenant-api/v1/websites/{w}/media` (multipart, the
 * file in part `file`), sent with XMLHttpRequest because fetch (and so the SDK) cannot report
 * upload progress. Same session token as the SDK; failures become the SDK's ApiError.
 */
import { ApiError, type Schemas, type SignedInClient } from '@siteplatform/sdk';
import { session } from '../../lib/session';

export type Media = Schemas['Media'];

export interface UploadOptions {
  folderId?: string | null;
  altText?: string;
  onProgress?(fraction: number): void;
  signal?: AbortSignal;
}

export async function uploadMedia(api: SignedInClient, websiteId: string, file: File, opts: UploadOptions = {}): Promise<Media> {
  // The SDK refreshes before its own calls; this call bypasses it, so refresh here when close to the end.
  if (api.session.expireTime.getTime() - Date.now() < 60_000) await api.session.refresh();
  const form = new FormData();
  if (opts.altText) form.append('alt_text', opts.altText);
  if (opts.folderId) form.append('folder_id', opts.folderId);
  form.append('file', file, file.name);
  return new Promise<Media>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/tenant-api/v1/websites/${encodeURIComponent(websiteId)}/media`);
    xhr.setRequestHeader('authorization', `Bearer ${api.session.token}`);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => e.lengthComputable && opts.onProgress?.(e.loaded / e.total);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve(xhr.response as Media);
      const body = xhr.response as { error?: Schemas['Error'] } | null;
      const error = new ApiError(body?.error ?? { code: xhr.status, status: 'INTERNAL', message: `HTTP ${xhr.status} without an error body`, details: [] }, xhr.getResponseHeader('x-request-id'));
      if (error.status === 'UNAUTHENTICATED') session.expire();
      reject(error);
    };
    xhr.onerror = () => reject(new TypeError('The upload did not reach the server.'));
    xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    opts.signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(form);
  });
}

/** `1536` → `1.5 KB`. */
export function formatBytes(n: number | undefined): string {
  if (n === undefined) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
