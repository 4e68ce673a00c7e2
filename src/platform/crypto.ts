import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM sealing of secrets at rest (provider keys, replayable sign-up results) under
 * ENCRYPTION_KEY. Output: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export function createSecretBox(key: Buffer) {
  if (key.length !== 32) throw new Error('secret box key must be 32 bytes');
  return {
    seal(plaintext: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    open(sealed: string): string {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
export type SecretBox = ReturnType<typeof createSecretBox>;

/** A random bearer secret (one-time tokens): 256 bits, base64url. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** How one-time tokens are stored: only their SHA-256, so a database leak does not leak them. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * Runs `work` and settles no sooner than `minMs` after `start`, success or failure: a question
 * such as "send a reset link to this address" then takes as long whether the address exists or not.
 */
export async function settleNoSoonerThan<T>(minMs: number, work: () => Promise<T>, start = Date.now()): Promise<T> {
  const settleAt = start + minMs;
  try {
    return await work();
  } finally {
    const wait = settleAt - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
