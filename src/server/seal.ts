/**
 * Sealing: what the store keeps that must stay readable only to the server
 * (a paused run's messages and the arguments and outputs of calls, secrets
 * and all, because the run continues from them) is encrypted with AES-256-GCM
 * under a key derived from the server's secret. Redaction keeps secrets out
 * of everything shown; sealing keeps them out of the database file. A sealed
 * text that was changed does not open.
 */
import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface Sealer {
  seal(text: string): string;
  /** Throws when the text was not sealed with this key, or was changed. */
  unseal(sealed: string): string;
}

/**
 * A sealer keyed by the server's secret (the same secret in every process
 * that shares a store).
 *
 * @example
 * const sealer = createSealer(secret);
 * const stored = sealer.seal(JSON.stringify(messages));
 */
export function createSealer(secret: string | Uint8Array): Sealer {
  // A KeyObject, made once: handing raw bytes to each cipher imports them again (three times the cost of sealing 4 KB).
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret, Buffer.alloc(0), 'toolgate store seal v1', 32)));
  return {
    seal(text) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    unseal(sealed) {
      const [version, data] = sealed.split('.', 2);
      if (version !== VERSION || data === undefined) throw new Error(`not a sealed record (expected ${VERSION}.…)`);
      const bytes = Buffer.from(data, 'base64url');
      if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('the sealed record is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new Error('the sealed record does not open with this server\'s secret (another secret, or changed)');
      }
    },
  };
}
