/**
 * A CONNECT request to voxform's local servers, answered as any other request. Node hands a CONNECT
 * to the server's `connect` listeners, not to its request handler, and without one it drops the
 * connection with no answer; neither server tunnels, so each answers it by its own rules (a target
 * that is not a path is a 400, a method it does not serve a 405) and prints what it prints for them.
 */
import http from 'node:http';
import type { Socket } from 'node:net';

export function answerConnectAsRequest(server: http.Server): void {
  server.on('connect', (req: http.IncomingMessage, socket: Socket) => {
    // Node's HTTP code let go of this socket: its errors (a client gone) are ours to absorb.
    socket.on('error', () => socket.destroy());
    const res = new http.ServerResponse(req);
    // The socket was taken off the HTTP parser: after this one answer nothing more is read from it.
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once('finish', () => {
      res.detachSocket(socket);
      socket.destroySoon();
    });
    server.emit('request', req, res);
  });
}
