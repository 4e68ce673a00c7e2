/**
 * Helpers for the media tests: multipart bodies built byte by byte (so tests can send what no
 * browser would: path-like names, two file parts), images made with sharp, uploads through HTTP.
 */
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { TestApp } from './app.js';
import { API, expectStatus } from './fixtures.js';

export type Part = { name: string; value: string } | { name: string; filename: string; data: Buffer; contentType?: string };

/** A multipart/form-data body and its Content-Type header. */
export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----test${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('data' in part) {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`));
      chunks.push(part.data);
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}`));
    }
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POST .../media with raw parts; answers the response (any status). */
export async function uploadRaw(t: TestApp, token: string | undefined, websiteId: string, parts: Part[], query = '') {
  const { body, contentType } = multipart(parts);
  return t.app.inject({
    method: 'POST',
    url: `${API}/websites/${websiteId}/media${query}`,
    headers: { 'content-type': contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: body,
  }) as unknown as Promise<Awaited<ReturnType<TestApp['request']>>>;
}

/** Uploads one file that must be accepted; answers the media resource. */
export async function upload(t: TestApp, token: string, websiteId: string, filename: string, data: Buffer, fields: Record<string, string> = {}): Promise<any> {
  const parts: Part[] = [...Object.entries(fields).map(([name, value]) => ({ name, value })), { name: 'file', filename, data, contentType: 'image/jpeg' }];
  const media = expectStatus(await uploadRaw(t, token, websiteId, parts), 201);
  expect(media.name).toBe(`websites/${websiteId}/media/${media.id}`);
  return media;
}

/** A JPEG of `width`×`height` (stored pixels), optionally with an EXIF orientation tag. */
export function jpeg(width: number, height: number, orientation?: number): Promise<Buffer> {
  let image = sharp({ create: { width, height, channels: 3, background: { r: 200, g: 60, b: 30 } } }).jpeg({ quality: 90 });
  if (orientation) image = image.withMetadata({ orientation });
  return image.toBuffer();
}

/** A PNG of `width`×`height`. */
export function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 10, g: 120, b: 200, alpha: 1 } } }).png().toBuffer();
}

export const SVG = Buffer.from(
  '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script><rect width="10" height="10"/></svg>',
);

/** The public read URL of a media. */
export const publicUrl = (websiteId: string, mediaId: string, query = '') => `/engine-api/v1/websites/${websiteId}/media/${mediaId}${query}`;

/** GET on the public surface (no token); answers the raw response with its body as bytes. */
export async function publicGet(t: TestApp, url: string, headers: Record<string, string> = {}) {
  const res = await t.app.inject({ method: 'GET', url, headers });
  return Object.assign(res, { bytes: res.rawPayload });
}

/**
 * Polls `check` until it passes (bounded: 5 s): for state that settles right after an answer, such
 * as a variant written to storage once it was served.
 */
export async function eventually(check: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
