import { isIP } from 'node:net';

/**
 * Whether a host names this machine: `localhost` (and `*.localhost`), 127.0.0.0/8 or ::1. Takes a
 * URL's hostname (`[::1]`) or an address to listen on (`::1`) alike: every "is this loopback" in
 * voxform asks here.
 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
