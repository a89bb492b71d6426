import bs58 from 'bs58';

export const encodeBase58 = (bytes: Uint8Array): string => bs58.encode(bytes);

/** Decodes base-58, or returns null when the text is not base-58. */
export function tryDecodeBase58(text: string): Uint8Array | null {
  try {
    return bs58.decode(text);
  } catch {
    return null;
  }
}

export const decodeBase58 = (text: string): Uint8Array => bs58.decode(text);
