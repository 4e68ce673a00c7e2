/**
 * A loopback HTTP server speaking the wire protocols the AI providers speak (OpenAI chat completions,
 * images and models under `/openai/v1`; Anthropic messages and models under `/anthropic`; an
 * OpenAI-compatible server under `/compat/v1`), including their error bodies. The real SDK adapters
 * talk to it over HTTP; tests script its answers and read back exactly what the platform sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { crc32, deflateSync } from 'node:zlib';

export type StandinProvider = 'openai' | 'anthropic' | 'compat';

/** One request the platform made. */
export interface StandinCall {
  provider: StandinProvider;
  method: string;
  /** Path below the provider's base URL, e.g. `/chat/completions`, `/v1/messages`. */
  path: string;
  /** The key it authenticated with (`Authorization: Bearer`, or Anthropic's `x-api-key`). */
  key: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  time: number;
}

/** A scripted answer to the next generation call of a provider. */
export interface Scripted {
  /** HTTP status (default 200). Non-2xx answers carry the provider's error body. */
  status?: number;
  headers?: Record<string, string>;
  /** Answer after this many ms (the platform's timeout may cut it off). */
  delayMs?: number;
  /** Text of the answer (default `standin answer`). */
  text?: string;
  /** Stopped at max_tokens. */
  truncated?: boolean;
  usage?: { input?: number; output?: number; cached?: number; cacheWrite?: number };
  /** Close the connection without answering. */
  hangUp?: boolean;
}

export interface ProviderStandin {
  url: string;
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  compatBaseUrl: string;
  calls: StandinCall[];
  /** Keys the stand-in accepts; anything else is answered 401. */
  validKeys: Set<string>;
  script(provider: StandinProvider, ...answers: Scripted[]): void;
  /** Generation calls (not model lists) of a provider. */
  runs(provider: StandinProvider): StandinCall[];
  reset(): void;
  close(): Promise<void>;
}

/** A valid PNG of the given size (solid colour), for image answers. */
export function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x7f)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

function openAiError(status: number): unknown {
  if (status === 401) return { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } };
  if (status === 429) return { error: { message: 'Rate limit reached.', type: 'requests', param: null, code: 'rate_limit_exceeded' } };
  if (status >= 500) return { error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null } };
  return { error: { message: 'Invalid request.', type: 'invalid_request_error', param: null, code: null } };
}

function anthropicError(status: number): unknown {
  const type = status === 401 ? 'authentication_error' : status === 403 ? 'permission_error' : status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return { type: 'error', error: { type, message: `${type} (stand-in)` } };
}

export async function startProviderStandin(): Promise<ProviderStandin> {
  const calls: StandinCall[] = [];
  const scripts: Record<StandinProvider, Scripted[]> = { openai: [], anthropic: [], compat: [] };
  const validKeys = new Set<string>();
  const sockets = new Set<import('node:net').Socket>();

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://standin');
    const [, prefix, ...rest] = url.pathname.split('/');
    const provider = (prefix === 'openai' || prefix === 'anthropic' || prefix === 'compat' ? prefix : undefined) as StandinProvider | undefined;
    if (!provider) return send(res, 404, { error: 'unknown path' });
    const isOpenAi = provider !== 'anthropic';
    // Paths are relative to each provider's base URL: `/openai/v1` + `/chat/completions`, `/anthropic` + `/v1/messages`.
    const path = '/' + (isOpenAi && rest[0] === 'v1' ? rest.slice(1) : rest).join('/');
    // Anthropic takes `x-api-key` or (as its current SDK sends it) `Authorization: Bearer`.
    const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '') || undefined;
    const key = isOpenAi ? bearer : ((req.headers['x-api-key'] as string | undefined) ?? bearer);
    const call: StandinCall = { provider, method: req.method ?? 'GET', path, key, headers: req.headers, body: text ? JSON.parse(text) : undefined, time: Date.now() };
    calls.push(call);
    const fail = (status: number, headers?: Record<string, string>) => send(res, status, isOpenAi ? openAiError(status) : anthropicError(status), headers);

    if (!key || !validKeys.has(key)) return fail(401);
    const isModels = req.method === 'GET' && path === (isOpenAi ? '/models' : '/v1/models');
    if (isModels) {
      return isOpenAi
        ? send(res, 200, { object: 'list', data: [{ id: 'gpt-5', object: 'model', created: 1754524800, owned_by: 'openai' }] })
        : send(res, 200, { data: [{ type: 'model', id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' }], has_more: false, first_id: 'a', last_id: 'a' });
    }
    const scripted = scripts[provider].shift() ?? {};
    if (scripted.delayMs) await new Promise((r) => setTimeout(r, scripted.delayMs));
    if (scripted.hangUp) return req.socket.destroy();
    if (scripted.status && scripted.status >= 400) return fail(scripted.status, scripted.headers);
    const usage = { input: 12, output: 7, cached: 0, cacheWrite: 0, ...scripted.usage };
    const answer = scripted.text ?? 'standin answer';

    if (isOpenAi && path === '/images/generations') {
      const [w, h] = String(call.body.size ?? '1024x1024').split('x').map(Number);
      return send(res, 200, {
        created: Math.floor(Date.now() / 1000),
        data: [{ b64_json: png(w, h).toString('base64') }],
        usage: { input_tokens: usage.input, output_tokens: usage.output, total_tokens: usage.input + usage.output, input_tokens_details: { text_tokens: usage.input, image_tokens: 0 } },
      }, scripted.headers);
    }
    if (isOpenAi && path === '/chat/completions') {
      return send(res, 200, {
        id: `chatcmpl-${calls.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: call.body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: answer, refusal: null }, finish_reason: scripted.truncated ? 'length' : 'stop', logprobs: null }],
        usage: {
          prompt_tokens: usage.input + usage.cached,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.cached + usage.output,
          prompt_tokens_details: { cached_tokens: usage.cached },
        },
      }, scripted.headers);
    }
    if (!isOpenAi && path === '/v1/messages') {
      return send(res, 200, {
        id: `msg_${calls.length}`,
        type: 'message',
        role: 'assistant',
        model: call.body.model,
        content: [{ type: 'text', text: answer }],
        stop_reason: scripted.truncated ? 'max_tokens' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: usage.output, cache_read_input_tokens: usage.cached, cache_creation_input_tokens: usage.cacheWrite },
      }, scripted.headers);
    }
    return fail(404);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => send(res, 500, { error: { message: String(err) } }));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/openai/v1`,
    anthropicBaseUrl: `${url}/anthropic`,
    compatBaseUrl: `${url}/compat/v1`,
    calls,
    validKeys,
    script(provider, ...answers) {
      scripts[provider].push(...answers);
    },
    runs(provider) {
      return calls.filter((c) => c.provider === provider && c.method === 'POST');
    },
    reset() {
      calls.length = 0;
      for (const p of Object.keys(scripts) as StandinProvider[]) scripts[p].length = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Environment pointing the platform's providers at the stand-in, with platform keys it accepts. */
export function standinEnv(standin: ProviderStandin): Record<string, string> {
  standin.validKeys.add('sk-platform-openai');
  standin.validKeys.add('sk-platform-anthropic');
  return {
    OPENAI_BASE_URL: standin.openaiBaseUrl,
    OPENAI_API_KEY: 'sk-platform-openai',
    ANTHROPIC_BASE_URL: standin.anthropicBaseUrl,
    ANTHROPIC_API_KEY: 'sk-platform-anthropic',
    OPENAI_COMPATIBLE_BASE_URL: standin.compatBaseUrl,
    OPENAI_COMPATIBLE_MODELS: 'llama3.1:8b',
    AI_RETRY_BASE_MS: '50',
  };
}
