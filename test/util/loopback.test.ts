import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/util/loopback.js';

describe('isLoopback', () => {
  it.each(['localhost', 'api.localhost', '127.0.0.1', '127.8.9.10', '::1', '[::1]'])('%s names this machine', (host) => {
    expect(isLoopback(host)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '[::]', '10.0.0.1', '128.0.0.1', 'example.com', 'localhost.example.com', '127.0.0.1.example.com', ''])('%s does not', (host) => {
    expect(isLoopback(host)).toBe(false);
  });
});
