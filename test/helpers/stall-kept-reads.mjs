/**
 * Loaded into a voxform process with `node --import` by tests that stop a load midway: every read
 * of a file under a `.voxform/` folder through a file handle (how kept files are read) announces
 * itself on stderr once and then never completes, so the load ends only if a signal ends it.
 * `STALL_READS_UNDER=/prompts/` stalls the reads under another folder instead.
 */
import { readlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';

const probe = await open(process.execPath, 'r');
const FileHandle = Object.getPrototypeOf(probe);
await probe.close();

const under = process.env.STALL_READS_UNDER ?? '/.voxform/';
const read = FileHandle.read;
let announced = false;
FileHandle.read = function stalledRead(...args) {
  const target = readlinkSync(`/proc/self/fd/${this.fd}`);
  if (!target.includes(under)) return read.apply(this, args);
  if (!announced) process.stderr.write(`stalled reading ${target}\n`);
  announced = true;
  return new Promise(() => undefined);
};
