import { createHmac, timingSafeEqual } from 'node:crypto';

/** The transform parameters of the public read, in the order a canonical query lists them. */
export const TRANSFORM_PARAMS = ['w', 'h', 'crop', 'enlarge', 'q', 'fmt'] as const;
export type TransformParam = (typeof TRANSFORM_PARAMS)[number];

/** Bytes of HMAC-SHA256 a signature keeps: 128 bits, 22 base64url characters in a URL. */
const SIGNATURE_BYTES = 16;

/**
 * Already-validated transform parameters in canonical form: fixed order, numbers without leading
 * zeros, flags as `1`. This is the text a signature covers and the query a signed URL carries, so
 * `w=0100&crop=true` and `crop=1&w=100` share one signature.
 */
export function canonicalTransformQuery(wanted: Partial<Record<TransformParam, string>>): string {
  const parts: string[] = [];
  for (const name of TRANSFORM_PARAMS) {
    const value = wanted[name];
    if (value === undefined) continue;
    const canonical = name === 'crop' || name === 'enlarge' ? '1' : name === 'fmt' ? value : String(Number(value));
    parts.push(`${name}=${canonical}`);
  }
  return parts.join('&');
}

function mac(secret: Buffer, websiteId: string, mediaId: string, canonical: string): Buffer {
  // Versioned and newline-separated: ids never hold a newline, so no two inputs share a text.
  return createHmac('sha256', secret).update(`v1\n${websiteId}\n${mediaId}\n${canonical}`).digest().subarray(0, SIGNATURE_BYTES);
}

/** The `sig` of one parameter set of one media (base64url). */
export function signTransform(secret: Buffer, websiteId: string, mediaId: string, canonical: string): string {
  return mac(secret, websiteId, mediaId, canonical).toString('base64url');
}

/** Whether `sig` signs exactly this parameter set of this media (constant-time comparison). */
export function transformSignatureMatches(secret: Buffer, websiteId: string, mediaId: string, canonical: string, sig: string): boolean {
  if (!/^[A-Za-z0-9_-]{22}$/.test(sig)) return false;
  const given = Buffer.from(sig, 'base64url');
  // The last character carries spare bits: only the one spelling that re-encodes is accepted.
  return given.length === SIGNATURE_BYTES && given.toString('base64url') === sig && timingSafeEqual(given, mac(secret, websiteId, mediaId, canonical));
}
