/**
 * Which files of a project a read may take. A CI job's checkout holds the commit under review and
 * whatever the job's steps wrote beside it: a `.env`, a cloud login's credentials file, a rendered
 * config. Only the first is the pull request's; the rest is the machine's, and a manifest or test
 * file naming it (`prompt: { file: .env }`, a committed link `tests/x.test.yaml -> ../.env`) would
 * have it quoted in the plan comment, or uploaded as knowledge once merged. So in a CI job (the
 * operator's `CI` variable, which CI services set) a project file is read only when its bytes are
 * those the checked-out commit (HEAD) holds at its real path, hashed as git hashes a blob: the bytes
 * decide, not the index nor `git status`, which a bit set on the machine silences; only the line
 * endings a checkout may convert (CRLF for LF) are read as the commit's. An operator whose job builds
 * files before voxform runs says so with VOXFORM_TRUST_UNCOMMITTED_FILES=1. Outside CI the work tree
 * is the developer's own, edits and new files alike; a project in no git work tree has no commit to
 * hold its files, and is read as it is. The templates voxform ships are its own wherever it is
 * installed (node_modules in the checkout, say), never the pull request's.
 */
import type { Hash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { GitRepository, TreeEntry } from './git.js';
import { readGuarded, type ReadOutcome, type ReadPolicy } from './guarded-read.js';
import { gitBlobHash, sha256Hex } from '../util/hash.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The operator's switch that lets a CI job read files its own steps wrote into the checkout. */
export const TRUST_UNCOMMITTED_VARIABLE = 'VOXFORM_TRUST_UNCOMMITTED_FILES';

/** A file the commit holds, as a read must find it: its git object id and size. */
export interface CommittedBlob {
  object: string;
  size: number;
}

/** Why no file may be read at a place, and how to fix it. */
export interface CheckoutRefusal {
  problem: string;
  fix: string;
}

/** The blob a read of a file must match; undefined when any file may be read; or why none may be read there. */
export type CheckoutAnswer = CommittedBlob | CheckoutRefusal | undefined;

const COMMIT_IT = `commit it (in a CI job voxform reads only the files of the commit under review: one a job's step wrote beside them, such as a .env, is the machine's; a job that builds files before voxform runs sets ${TRUST_UNCOMMITTED_VARIABLE}=1)`;

/** Why git may not answer in a CI job, and what the operator does about it. */
const MAKE_GIT_ANSWER =
  `make git answer in the job: install it, and if the checkout belongs to another user than the job's, name it with \`git config --global --add safe.directory <checkout>\` (in a CI job voxform reads only the files of the commit under review, and asks git what that holds; a job whose checkout holds nothing but the commit may set ${TRUST_UNCOMMITTED_VARIABLE}=1 instead)`;

/** What a refusal's hint says of a file a CI job may not read. */
export const UNCOMMITTED_HINT = '`git status --ignored` lists the files the checkout holds beside its commit.';

export class CheckoutFiles {
  /** Every file of the project may be read: outside CI, and for reads whose text goes nowhere (init's comparisons). */
  static readonly ANY = new CheckoutFiles(undefined);

  /**
   * The rule for a run in the operator's environment `env`. Files inside `ownFolders` (the templates
   * voxform ships, a folder the operator names) are voxform's or the operator's: read as they are.
   */
  static forRun(env: Env, ownFolders: readonly string[] = []): CheckoutFiles {
    return inCiJob(env) && env[TRUST_UNCOMMITTED_VARIABLE] !== '1' ? new CheckoutFiles(env, ownFolders) : CheckoutFiles.ANY;
  }

  /** The work tree (with its repository) holding each project root asked about; undefined: in none. */
  private readonly workTrees = new Map<string, Promise<WorkTree | undefined>>();
  /** What HEAD holds in each folder asked about, by work tree and folder (entries by path from its root); undefined: git could not say. */
  private readonly folders = new Map<string, Promise<Map<string, TreeEntry> | undefined>>();

  /** The real paths of the folders whose files are read as they are; resolved once asked. */
  private ownFolders: Promise<string[]> | undefined;

  /** `env` is the operator's environment of a CI job whose files must be committed; undefined: any file may be read. */
  private constructor(
    private readonly env: Env | undefined,
    private readonly ownFolderPaths: readonly string[] = [],
  ) {}

  /**
   * What must be at `real` (the real path of a file inside project root `root`) for its bytes to be
   * read: the blob HEAD holds there; undefined when any bytes may be; or why none may.
   */
  async expect(root: string, real: string): Promise<CheckoutAnswer> {
    const env = this.env;
    if (env === undefined || (await this.isOwn(real))) return undefined;
    let workTree = this.workTrees.get(root);
    if (!workTree) this.workTrees.set(root, (workTree = workTreeOf(root, env)));
    const tree = await workTree;
    if (!tree) return undefined;
    const fromRoot = tree.git.pathFromRoot(tree.root, real);
    if (fromRoot === undefined || !tree.repository) return { problem: `could not be checked against the commit under review (git could not be asked in ${tree.root})`, fix: MAKE_GIT_ANSWER };
    const folder = path.posix.dirname(fromRoot);
    const key = `${tree.root}\0${folder}`;
    let listing = this.folders.get(key);
    if (!listing) this.folders.set(key, (listing = committedIn(tree, folder)));
    const entries = await listing;
    if (!entries) return { problem: `could not be checked against the commit under review (git could not list ${folder === '.' ? 'the root of its work tree' : folder})`, fix: MAKE_GIT_ANSWER };
    const entry = entries.get(fromRoot);
    if (!entry || !tree.git.isRegularFile(entry)) return { problem: 'is not a file of the commit under review', fix: COMMIT_IT };
    return { object: entry.object, size: entry.size };
  }

  /** Whether the file at `real` is inside one of the folders read as they are. */
  private async isOwn(real: string): Promise<boolean> {
    if (this.ownFolderPaths.length === 0) return false;
    this.ownFolders ??= Promise.all(this.ownFolderPaths.map((folder) => realpath(folder).catch(() => path.resolve(folder))));
    return (await this.ownFolders).some((folder) => real.startsWith(folder.endsWith(path.sep) ? folder : `${folder}${path.sep}`));
  }

  /**
   * Whether bytes of this SHA-256 and size are what `blob`, committed at their place, stands for as a
   * Git LFS pointer: a checkout with LFS writes the object's bytes there, not the pointer's, and they
   * are the commit's all the same. False for any other blob.
   */
  async isLfsObject(root: string, blob: CommittedBlob, sha256: string, size: number): Promise<boolean> {
    if (blob.size > MAX_LFS_POINTER_BYTES) return false;
    const tree = await this.workTrees.get(root);
    const answer = await tree?.repository?.run(['cat-file', 'blob', blob.object], { maxOutput: MAX_LFS_POINTER_BYTES, keepBlankLines: true });
    const pointer = answer && !answer.cut ? lfsPointer(answer.lines) : undefined;
    return pointer !== undefined && pointer.oid === sha256 && pointer.size === size;
  }
}

/** Largest blob read as a possible Git LFS pointer: the format's pointers are a few lines. */
const MAX_LFS_POINTER_BYTES = 1024;

/** The object a Git LFS pointer's lines name (its SHA-256 and size); undefined for other text. */
function lfsPointer(lines: readonly string[]): { oid: string; size: number } | undefined {
  if (lines[0] !== 'version https://git-lfs.github.com/spec/v1') return undefined;
  const oid = lines.map((line) => /^oid sha256:([0-9a-f]{64})$/.exec(line)?.[1]).find((found) => found !== undefined);
  const size = lines.map((line) => /^size (\d+)$/.exec(line)?.[1]).find((found) => found !== undefined);
  return oid === undefined || size === undefined ? undefined : { oid, size: Number(size) };
}

/**
 * Reads a file of the project (one a manifest or test file names, a manifest, a template's file):
 * under the guards of guarded-read.ts, then, where `checkout` asks it, only when the bytes read are
 * those the commit holds at the file's real path.
 */
export async function readProjectFile(file: string, policy: ReadPolicy, checkout: CheckoutFiles): Promise<ReadOutcome> {
  const outcome = await readGuarded(file, policy);
  if (!outcome.ok) return outcome;
  const expected = await checkout.expect(policy.root, outcome.real);
  const read: ReadOutcome = { ok: true, bytes: outcome.bytes };
  if (expected === undefined) return read;
  if ('problem' in expected) return notCommitted(file, outcome.real, policy.root, expected);
  if (isCommittedBlob(expected, outcome.bytes)) return read;
  if (await checkout.isLfsObject(policy.root, expected, sha256Hex(outcome.bytes), outcome.bytes.length)) return read;
  return notCommitted(file, outcome.real, policy.root, DIFFERS);
}

/** How a file that is not the commit's blob at its path differs. */
export const DIFFERS: CheckoutRefusal = { problem: 'differs from the file the commit under review holds at its path', fix: COMMIT_IT };

/** The refusal of a file (as written, and its real path) that is not the commit's: `refusal` says how, and what to do. */
export function notCommitted(file: string, real: string, root: string, refusal: CheckoutRefusal): Extract<ReadOutcome, { ok: false }> {
  const linked = path.resolve(file) === real ? '' : `is a symbolic link to ${path.relative(root, real)}, which `;
  return { ok: false, reason: 'uncommitted', message: `${linked}${refusal.problem}; ${refusal.fix}` };
}

/** Whether the environment says this is a CI job: `CI` set, as CI services set it, to anything but empty, `0` or `false`. */
export function inCiJob(env: Env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== '0' && value !== 'false';
}

/** Whether `bytes` are the blob `blob`, as git would store them with no filter but the line endings' (BlobMatch). */
export function isCommittedBlob(blob: CommittedBlob, bytes: Buffer): boolean {
  const match = new BlobMatch(blob);
  match.update(bytes);
  return match.matches();
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * Whether bytes fed in pieces are the blob `blob`: as they are, or with each CRLF read as LF. A
 * checkout converts the line endings of text files (core.autocrlf, `eol=crlf` in .gitattributes),
 * writing CRLF where the commit holds LF; the bytes are the commit's all the same.
 */
export class BlobMatch {
  private readonly asRead: Hash;
  private readonly asCommitted: Hash;
  private sizeAsRead = 0;
  private sizeAsCommitted = 0;
  /** A CR ended the last piece: whether it is half of a CRLF depends on the next. */
  private pendingCR = false;

  constructor(private readonly blob: CommittedBlob) {
    this.asRead = blobHash(blob);
    this.asCommitted = blobHash(blob);
  }

  update(piece: Buffer): void {
    if (piece.length === 0) return;
    this.asRead.update(piece);
    this.sizeAsRead += piece.length;
    let from = 0;
    if (this.pendingCR) {
      this.pendingCR = false;
      if (piece[0] !== LF) this.feedCommitted(Buffer.of(CR));
    }
    for (let cr = piece.indexOf(CR); cr !== -1; cr = piece.indexOf(CR, cr + 1)) {
      if (cr === piece.length - 1) {
        this.feedCommitted(piece.subarray(from, cr));
        this.pendingCR = true;
        return;
      }
      if (piece[cr + 1] !== LF) continue;
      this.feedCommitted(piece.subarray(from, cr));
      from = cr + 1;
    }
    this.feedCommitted(piece.subarray(from));
  }

  matches(): boolean {
    if (this.pendingCR) this.feedCommitted(Buffer.of(CR));
    this.pendingCR = false;
    if (this.sizeAsRead === this.blob.size && this.asRead.digest('hex') === this.blob.object) return true;
    return this.sizeAsCommitted === this.blob.size && this.asCommitted.digest('hex') === this.blob.object;
  }

  private feedCommitted(bytes: Buffer): void {
    this.asCommitted.update(bytes);
    this.sizeAsCommitted += bytes.length;
  }
}

/** A hash to be fed the bytes of `blob`, as git names a blob: SHA-256 or SHA-1, by the id's length. */
function blobHash(blob: CommittedBlob): Hash {
  return gitBlobHash(blob.object.length === 64 ? 'sha256' : 'sha1', blob.size);
}

type GitModule = typeof import('./git.js');

interface WorkTree {
  root: string;
  repository: GitRepository | undefined;
  git: GitModule;
}

async function workTreeOf(root: string, env: Env): Promise<WorkTree | undefined> {
  // Loaded only in a CI job: outside one, reading a project's files needs no git.
  const git = await import('./git.js');
  const workTree = await git.gitWorkTreeRoot(root);
  return workTree === undefined ? undefined : { root: workTree, repository: await git.openGitRepository(workTree, env), git };
}

/** The entries HEAD holds directly in `folder` (from the work tree's root, `.` for the root), by path; undefined when git cannot say. */
async function committedIn({ repository, git }: WorkTree, folder: string): Promise<Map<string, TreeEntry> | undefined> {
  if (!repository) return undefined;
  const at = folder === '.' ? [] : [`${folder}/`];
  const entries = await git.listTree(repository, 'HEAD', { at, recursive: false, where: folder }, (why) => new Error(why)).catch(() => undefined);
  return entries && new Map(entries.map((entry) => [entry.path, entry]));
}
