/** EVM revert data for people. */
/** Revert data (Besu's revertReason: the raw return data) → Error(string) text or Panic(code), else null. */
export function decodeRevert(data: string | null | undefined): string | null {
  if (!data || !/^0x[0-9a-fA-F]*$/.test(data)) return null;
  const hex = data.slice(2).toLowerCase();
  const word = (i: number) => BigInt('0x' + (hex.slice(8 + i * 64, 8 + (i + 1) * 64) || '0'));
  if (hex.startsWith('08c379a0') && hex.length >= 8 + 128) {
    const offset = Number(word(0));
    const start = 8 + offset * 2;
    const length = Number(BigInt('0x' + hex.slice(start, start + 64)));
    const bytes = hex.slice(start + 64, start + 64 + length * 2);
    if (bytes.length !== length * 2) return null;
    return new TextDecoder().decode(Uint8Array.from(bytes.match(/../g) ?? [], (b) => parseInt(b, 16)));
  }
  if (hex.startsWith('4e487b71') && hex.length === 8 + 64) return `Panic(0x${word(0).toString(16)})`;
  return null;
}
