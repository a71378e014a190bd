/**
 * The emulator: a faithful local stand-in for the voice-agent service (docs/emulator.md).
 *
 *   const emulator = await startEmulator();           // port 0, the default seed, in memory
 *   // … point a client at emulator.url with emulator.apiKey …
 *   emulator.control.setFaults([{ path: '/agents/*', errorRate: 0.2 }], { seed: 1 });
 *   await emulator.close();
 */
export { dataFileUnwritable, startEmulator } from './server.js';
export { checkSeed } from './seed.js';
export { defaultSeed, DEFAULT_PRIVATE_KEY, DEFAULT_PUBLIC_KEY } from './default-seed.js';
export type { EmulatorOptions, RunningEmulator, EmulatorSeed, CallRecord, TrafficOptions, TrafficSummary } from './types.js';
