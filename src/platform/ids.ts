import { randomBytes } from 'node:crypto';
import { InvalidArgument } from './errors.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lowercase

/**
 * A new opaque id: 10 characters of time (ms) then 10 random ones, so ids created later sort
 * later, which keeps insert-order indexes compact. Always starts with a digit or letter.
 */
export function newId(now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let random = '';
  for (const b of bytes) random += ALPHABET[b % 32];
  return time + random;
}

/** Client-chosen ids (`?id=`): AIP-122 style, lowercase letters, digits and hyphens, 1..63. */
export const CLIENT_ID_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function checkClientId(id: string): void {
  if (!CLIENT_ID_PATTERN.test(id)) {
    throw InvalidArgument.field('id', 'must be 1-63 lowercase letters, digits or hyphens, not starting or ending with a hyphen');
  }
}

/** Path ids we never look up: anything outside this shape is NOT_FOUND without touching the database. */
export const PATH_ID_PATTERN = /^[A-Za-z0-9_.~-]{1,128}$/;
