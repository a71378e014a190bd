/** Sizes as messages give them: the one way voxform writes a number of bytes. */

/** "2 MiB", "1.5 MiB", "512 KiB", "300 bytes". */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${trim(bytes / (1024 * 1024))} MiB`;
  if (bytes >= 1024) return `${trim(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

function trim(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
