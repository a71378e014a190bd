// Types of manifest-fuzzer.mjs (plain JavaScript, so scripts/fuzz.mjs runs it without a compiler).
import type { LoadOptions, LoadResult } from '../../src/manifest/types.js';

export interface Random {
  next(): number;
  int(max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export interface FuzzCase {
  name: string;
  kind: string;
  manifest: Buffer;
  environment: string | undefined;
  random: Random;
}

export interface Verdict {
  clean: boolean;
  why: string;
  ms: number;
}

export const PLANTED: string;
export function createRandom(seed: number): Random;
export function generateCase(seed: number, index: number): FuzzCase;
export interface Workspace {
  /** Writes the case's manifest and files over the last case's; resolves with the project folder. */
  write(testCase: FuzzCase): Promise<string>;
  close(): Promise<void>;
}

export function writeCase(testCase: FuzzCase): Promise<{ project: string; cleanup: () => Promise<void> }>;
export function openWorkspace(): Promise<Workspace>;
export function runCase(testCase: FuzzCase, loadManifests: (options: LoadOptions) => Promise<LoadResult>, workspace?: Workspace): Promise<Verdict>;
export function generateLayoutCase(seed: number, index: number): { name: string; text: string };
