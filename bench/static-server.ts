/**
 * The ceiling of the media bench: the same bytes a cached variant read answers, served by
 * @fastify/static from a directory (its ETag, Last-Modified, Cache-Control), as a child process
 * like the platform. `STATIC_ROOT=<dir> node dist/bench/static-server.js` prints `listening on <url>`.
 */
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

const root = process.env.STATIC_ROOT;
if (!root) throw new Error('STATIC_ROOT must name the directory to serve');
const app = Fastify({ logger: false });
await app.register(fastifyStatic, { root, maxAge: 86_400_000 });
const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`listening on ${address}`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void app.close().then(() => process.exit(0)));
