/** Small display helpers. */
export const short = (s: string, keep = 8) => (s.length <= keep * 2 + 1 ? s : `${s.slice(0, keep)}…${s.slice(-keep)}`);

export function timeAgo(unixSeconds: number | null | undefined, now = Date.now()): string {
  if (unixSeconds == null) return '–';
  const d = Math.round(now / 1000 - unixSeconds);
  if (d < 5) return 'just now';
  if (d < 60) return `${d} s ago`;
  if (d < 3600) return `${Math.floor(d / 60)} min ago`;
  if (d < 86400) return `${Math.floor(d / 3600)} h ago`;
  return `${Math.floor(d / 86400)} d ago`;
}

export const dateTime = (unixSeconds: number | null | undefined) => (unixSeconds == null ? '–' : new Date(unixSeconds * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC'));

export function base64ToHex(b64: string): string {
  const bin = atob(b64);
  let out = '';
  for (let i = 0; i < bin.length; i++) out += bin.charCodeAt(i).toString(16).padStart(2, '0');
  return out;
}

/** 1234567 → "1.2 MB" (powers of 1000, as file managers show disk use). */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
