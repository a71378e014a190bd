/** How a state write the file system refused is reported: what failed, why, and the fix that fits the cause. */
import { VoxformError } from '../errors.js';
import { describeWriteFailure } from '../util/atomic-write.js';

/**
 * What to do about a write the file system refused, for a hint ("…; --state names the state file."):
 * a full disk needs space, a refused permission a writable file; anything else, its folder checked.
 */
export function stateWriteRemedy(error: unknown): string {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOSPC':
      return 'Free space on the disk of the state file';
    case 'EDQUOT':
      return 'Free space within your disk quota';
    case 'EACCES':
    case 'EPERM':
      return 'Make the state file and its folder writable for this user';
    case 'EROFS':
      return 'Make the file system of the state file writable, or name a state file elsewhere';
    default:
      return 'Check that the folder of the state file exists and is writable';
  }
}

/**
 * The error of a state file write the file system refused; `unchanged` says what stays as it was
 * ("nothing was removed"); `chosenWith`: what named the file (`--state`, `VOXFORM_STATE`, `--to`).
 */
export function stateWriteFailed(error: unknown, display: string, unchanged: string, chosenWith: string): VoxformError {
  return new VoxformError('state_write_failed', `Cannot write the state file ${display}: ${describeWriteFailure(error)}; ${unchanged}.`, {
    hint: `${stateWriteRemedy(error)}, then run the command again; ${chosenWith} names the state file.`,
    cause: error,
  });
}
