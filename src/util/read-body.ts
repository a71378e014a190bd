/** Reading a request body for voxform's servers: one over `limit` bytes is refused without reading the rest. */
import type { IncomingMessage } from 'node:http';

export class BodyTooLarge extends Error {}

/** The client closed the connection before its whole body arrived. */
export class BodyCutShort extends Error {}

const EMPTY = Buffer.alloc(0);

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  // Most requests (every GET) have no body: skip the stream machinery for them.
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    req.resume();
    return Promise.resolve(EMPTY);
  }
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    // A body cut short ends the stream with an error (or only a close): either way, settle.
    req.on('error', () => reject(new BodyCutShort()));
    req.on('close', () => {
      if (!req.complete) reject(new BodyCutShort());
    });
  });
}
