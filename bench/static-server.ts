/**
 * The ceiling of the media bench: the same bytes a cached variant read answers, served by
 * @fastify/static from a directory (its ETag, Last-Modified, Cache-Control), as a child process
 * like the platform. `node dist/bench/static-server.js <dir>` prints `listening on <url>`.
 */
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

const root = process.argv[2];
if (!root) throw new Error('usage: static-server.js <directory>');
const app = Fastify({ logger: false });
await app.register(fastifyStatic, { root, maxAge: 86_400_000 });
const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`listening on ${address}`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));
