/**
 * A webhook receiver on loopback (node:http): records every POST (headers, raw body) and answers what
 * the test says (`respond`: status, body, or never — a hanging request for kill tests).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  path: string;
  /** What the receiver answered. */
  answer?: Answer;
}

export type Answer = { status: number; body?: string } | 'hang';

export interface Receiver {
  /** `http://127.0.0.1:{port}` + path. */
  url(path?: string): string;
  received: Received[];
  /** Decides the answer of each request (default 204). */
  respond: (req: Received, index: number) => Answer;
  /** Requests received on `path`. */
  on(path: string): Received[];
  /** Ends hanging requests (their sockets). */
  release(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: (path = '/hook') => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received: [],
    respond: () => ({ status: 204 }),
    on: (path) => receiver.received.filter((r) => r.path === path),
    release() {
      for (const res of hanging.splice(0)) res.destroy();
    },
    async close() {
      receiver.release();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const received: Received = { headers: req.headers, body, json, path: req.url ?? '/' };
      receiver.received.push(received);
      const answer = receiver.respond(received, receiver.received.length - 1);
      received.answer = answer;
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain' });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return receiver;
}

/** Verifies a received delivery with the `standardwebhooks` package; answers the payload or throws. */
export function verify(secret: string, r: Received): unknown {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });
}
