import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import type { FastifyBaseLogger } from 'fastify';
import type { Selectable } from 'kysely';
import type { DB, Trx } from '../platform/db/schema.js';
import { SYSTEM_ACTOR, type Events } from '../platform/events/events.js';
import type { Database } from '../platform/db/database.js';
import type { SecretBox } from '../platform/crypto.js';
import { ApiError, Cancelled, renderError, type CanonicalStatus, type ErrorBody, type ErrorDetail } from '../platform/errors.js';
import type { OperationHandler, OperationRun, Operations } from '../platform/jobs/operations.js';
import { newId } from '../platform/resource/ids.js';
import type { BlobStore } from '../platform/storage/blobs.js';
import { CONTENT_TYPE_OF, loadSharp, type OutputFormat } from '../media/index.js';
import { costOf, estimateRunCost, type BillingService } from '../ai-billing/index.js';
import { timeoutSeconds } from './agent.resource.js';
import { agentVersionSnapshot, findExecution, instructionVersionContent, lockExecutionUsage, markConnectionInvalid, updateExecution } from './ai.repo.js';
import type { Catalogue, CatalogueModel, Provider } from './catalogue.js';
import { FINAL_STATES, routingRefusal } from './execution.resource.js';
import { enqueueRunFollowUp } from './follow-ups.js';
import type { Providers } from './providers/index.js';
import { ProviderFailure, ZERO_USAGE, type ProviderAnswer, type ProviderRequest, type Usage } from './providers/provider.js';
import { routeRun, type Route } from './routing.js';
import { renderTemplate } from './template.js';

/** A run's row. */
type Execution = Selectable<DB['ai_executions']>;

/** The agent settings a run uses, as its version's snapshot stored them (the agent's API shape). */
interface AgentSnapshot {
  output_format: ProviderRequest['outputFormat'];
  output_schema?: Record<string, unknown> | null;
  effort?: string | null;
  max_tokens: number;
  image_width?: number | null;
  image_height?: number | null;
  image_quality?: string | null;
  connection_mode: string;
  max_attempts: number;
  timeout: string;
}

/** One entry of `attempts`. */
interface Attempt {
  number: number;
  start_time: string;
  end_time?: string;
  http_status?: number;
  error_code?: string;
  message?: string;
  usage?: Usage;
  connection_id: string;
  connection_mode: 'BYOK' | 'MANAGED';
}

const MAX_BACKOFF_MS = 60_000;
const QUALITY: Record<string, 'low' | 'medium' | 'high'> = { LOW: 'low', MEDIUM: 'medium', HIGH: 'high', XHIGH: 'high', MAX: 'high' };

const USAGE_KEYS = Object.keys(ZERO_USAGE) as Array<keyof Usage>;
const addUsage = (a: Usage, b: Usage): Usage => {
  const sum = { ...ZERO_USAGE };
  for (const k of USAGE_KEYS) sum[k] = a[k] + (b[k] ?? 0);
  return sum;
};
const iso = (ms: number) => new Date(ms).toISOString();

/** An error of the run in the canonical body shape, `code` the HTTP status its status maps to (RUNTIME.md). */
function runError(status: CanonicalStatus, message: string, reason?: string): ErrorBody['error'] {
  const details: ErrorDetail[] = reason ? [{ type: 'PRECONDITION_FAILURE', reason }] : [];
  return renderError(new ApiError(status, message, details), `run_${randomUUID().replace(/-/g, '').slice(0, 20)}`).error;
}

/** Format and size of a generated image, read by sharp from the bytes (never trusted from the provider). */
async function imageFacts(bytes: Buffer): Promise<{ mime: string; width?: number; height?: number }> {
  try {
    const meta = await (await loadSharp())(bytes).metadata();
    const mime = meta.format && meta.format in CONTENT_TYPE_OF ? CONTENT_TYPE_OF[meta.format as OutputFormat] : 'application/octet-stream';
    return { mime, width: meta.width, height: meta.height };
  } catch {
    return { mime: 'application/octet-stream' };
  }
}
const EXTENSION: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/avif': 'avif', 'image/gif': 'gif', 'image/tiff': 'tiff', 'application/octet-stream': 'bin' };

/**
 * The AI_EXECUTION handler: runs one execution's attempts on the shared Operations queue (lease,
 * SKIP LOCKED claiming, NOTIFY wake-ups, crash recovery are the queue's). Each attempt is routed to
 * the first usable connection, recorded in `attempts` and (MANAGED) charged in one transaction with
 * its recording. A retryable failure puts the run back to QUEUED and defers the Operation until the
 * provider's Retry-After or a jittered backoff, so waiting holds no worker.
 */
/** Event of a run reaching a final state (SUCCEEDED, FAILED, EXPIRED, CANCELLED), with the run as `data`. */
export const AI_EXECUTION_FINISHED = 'ai_execution.finished';

export function executionHandler(deps: {
  database: Database;
  catalogue: Catalogue;
  providers: Providers;
  billing: BillingService;
  secrets: SecretBox;
  blobs: BlobStore;
  logger: FastifyBaseLogger;
  retryBaseMs: number;
  /** For the follow-up Operation of a module's run (`follow-ups.ts`), enqueued with the final state. */
  operations: Operations;
  /** Every write of a run is an `ai_execution.updated` event; a final state also `ai_execution.finished`. */
  events?: Events;
  /** The run as Get answers it (the execution service's `toResource`), for the events' data. */
  present?(row: Execution): Record<string, unknown>;
}): OperationHandler {
  const { db, dialect } = deps.database;
  const schemaChecker = new Ajv({ strict: false, allErrors: true });

  const load = (id: string) => findExecution(db, id);

  /**
   * Writes a run's row (revision + 1) and records its events in the same transaction: the worker
   * writes runs outside the resource engine, so it emits what the engine would (`ai_execution.updated`),
   * plus `ai_execution.finished` when the write ends the run. Without `trx`, in a transaction of its own.
   */
  async function update(id: string, fields: Record<string, unknown>, trx?: Trx, pending?: Array<() => void | Promise<void>>): Promise<void> {
    if (!trx) {
      const after: Array<() => void | Promise<void>> = [];
      await db.transaction().execute((t) => update(id, fields, t, after));
      for (const fn of after) await fn();
      return;
    }
    const now = Date.now();
    const row = await updateExecution(trx, id, fields, now);
    const events = deps.events;
    if (!row || !events || !deps.present) return;
    const data = deps.present(row);
    const base = { accountId: row.account_id, websiteId: null, resource: String(data.name), collection: 'ai_executions', actor: SYSTEM_ACTOR, data, previous: null, occurTime: now };
    const afterCommit = (fn: () => void | Promise<void>) => void pending?.push(fn);
    await events.record(trx, { ...base, type: 'ai_execution.updated' }, afterCommit);
    if (FINAL_STATES.has(String(fields.state))) await events.record(trx, { ...base, type: AI_EXECUTION_FINISHED }, afterCommit);
  }

  async function finish(exec: Execution, state: 'FAILED' | 'EXPIRED' | 'CANCELLED', error: ErrorBody['error'], attempts?: Attempt[]): Promise<void> {
    const pending: Array<() => void | Promise<void>> = [];
    const woke = await db.transaction().execute(async (trx) => {
      await update(exec.id, { state, error: dialect.json(error), end_time: Date.now(), ...(attempts && { attempts: dialect.json(attempts) }) }, trx, pending);
      return enqueueRunFollowUp(trx, deps.operations, exec as { id: string; account_id: string }, Date.now());
    });
    for (const fn of pending) await fn();
    if (woke) deps.operations.wake();
  }

  /** Turns an answer into `output`, or a failure (unparsable or off-schema JSON, truncated JSON). */
  async function outputOf(exec: Execution, agent: AgentSnapshot, answer: ProviderAnswer, attemptNumber: number): Promise<Record<string, unknown>> {
    if (agent.output_format === 'IMAGE') {
      const bytes = answer.image!.bytes;
      const facts = await imageFacts(bytes);
      const mime = facts.mime;
      const size = { width: facts.width ?? Number(agent.image_width), height: facts.height ?? Number(agent.image_height) };
      const key = `accounts/${exec.account_id}/ai_executions/${exec.id}/attempt-${attemptNumber}-image-1.${EXTENSION[mime]}`;
      const stored = await deps.blobs.put(key, bytes, { contentType: mime });
      return { artifacts: [{ storage_key: key, mime_type: mime, width: size.width, height: size.height, byte_size: stored.size }], output_truncated: false };
    }
    const text = answer.text ?? '';
    if (agent.output_format === 'TEXT') return { text, output_truncated: answer.truncated };
    if (answer.truncated) {
      throw new ProviderFailure('the JSON answer stopped at max_tokens and is incomplete', { httpStatus: 200, status: 'FAILED_PRECONDITION', retryable: false, reason: 'OUTPUT_TRUNCATED', usage: answer.usage });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ProviderFailure('the model answered malformed JSON', { httpStatus: 200, status: 'FAILED_PRECONDITION', retryable: true, reason: 'OUTPUT_NOT_JSON', usage: answer.usage });
    }
    const validate = schemaChecker.compile(agent.output_schema ?? {});
    if (!validate(json)) {
      throw new ProviderFailure(`the model's JSON does not match output_schema: ${schemaChecker.errorsText(validate.errors)}`, {
        httpStatus: 200,
        status: 'FAILED_PRECONDITION',
        retryable: true,
        reason: 'OUTPUT_SCHEMA_MISMATCH',
        usage: answer.usage,
      });
    }
    return { json, output_truncated: false };
  }

  /** Records one finished attempt (and its charge) in one transaction. */
  async function recordAttempt(
    exec: Execution,
    model: CatalogueModel,
    attempts: Attempt[],
    attempt: Attempt,
    usage: Usage | undefined,
    final: Record<string, unknown>,
    keyRefused: boolean,
  ): Promise<void> {
    const now = Date.now();
    let followUp = false;
    const pending: Array<() => void | Promise<void>> = [];
    await db.transaction().execute(async (trx) => {
      const current = await lockExecutionUsage(trx, dialect, exec.id);
      const fields: Record<string, unknown> = { ...final, attempts: dialect.json(attempts) };
      if (usage) {
        const cost = attempt.connection_mode === 'MANAGED' ? costOf(usage, model.prices) : undefined;
        fields.usage = dialect.json(addUsage(dialect.readJson<Usage>(current.usage) ?? ZERO_USAGE, usage));
        if (cost !== undefined) fields.cost_nanos = Number(current.cost_nanos ?? 0) + cost;
        await deps.billing.recordUsage(trx, {
          id: newId(now), account_id: exec.account_id, execution_id: exec.id, attempt_number: attempt.number, agent_id: exec.agent_id,
          model_id: model.id, provider: model.provider, connection_id: attempt.connection_id, connection_mode: attempt.connection_mode,
          ...usage, cost_nanos: cost ?? null, revision: 1, create_time: now, update_time: now,
        });
        if (cost !== undefined) await deps.billing.charge(trx, { accountId: exec.account_id, amount: cost, executionId: exec.id, attempt: attempt.number, modelId: model.id, now });
      }
      await update(exec.id, fields, trx, pending);
      if (FINAL_STATES.has(String(final.state))) followUp = await enqueueRunFollowUp(trx, deps.operations, exec as { id: string; account_id: string }, now);
      if (keyRefused && attempt.connection_mode === 'BYOK') {
        // SPEC 3.2: a run the provider refused for the key's sake changes the connection's status.
        await markConnectionInvalid(trx, attempt.connection_id, now);
      }
    });
    for (const fn of pending) await fn();
    if (followUp) deps.operations.wake();
  }

  function backoff(attemptNumber: number): number {
    const ceiling = Math.min(MAX_BACKOFF_MS, deps.retryBaseMs * 2 ** (attemptNumber - 1));
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }

  async function run(op: OperationRun): Promise<unknown> {
    const id = String(op.payload.execution_id);
    const exec = await load(id);
    if (!exec || FINAL_STATES.has(exec.state)) return { execution: id };
    const name = `accounts/${exec.account_id}/ai_executions/${id}`;
    const version = await agentVersionSnapshot(db, exec.agent_id, exec.agent_version);
    const agent = dialect.readJson<AgentSnapshot>(version.snapshot);
    const model = deps.catalogue.models.get(exec.model_id);
    const attempts = dialect.readJson<Attempt[]>(exec.attempts) ?? [];

    if (exec.start_time == null && exec.expire_time != null && Date.now() >= Number(exec.expire_time)) {
      await finish(exec, 'EXPIRED', runError('DEADLINE_EXCEEDED', 'expire_time passed before the run started; the provider was not called', 'EXPIRED'));
      return { execution: name };
    }
    if (!model || model.state !== 'AVAILABLE') {
      await finish(exec, 'FAILED', runError('FAILED_PRECONDITION', `model ${exec.model_id} is no longer AVAILABLE`, 'MODEL_NOT_AVAILABLE'));
      return { execution: name };
    }
    // An attempt left open was cut off with its worker: close it as failed (retryable) before going on.
    const open = attempts.find((a) => !a.end_time);
    if (open) {
      Object.assign(open, { end_time: iso(Date.now()), http_status: 0, error_code: 'UNAVAILABLE', message: 'the worker running this attempt stopped' });
      await update(id, { attempts: dialect.json(attempts), state: 'QUEUED' });
    }

    const instruction = await instructionVersionContent(db, exec.instruction_id, exec.instruction_version);
    const input = dialect.readJson<{ variables?: Record<string, string | number | boolean>; text?: string }>(exec.input) ?? {};
    const rendered = renderTemplate(instruction.content, input.variables ?? {});
    const image = agent.output_format === 'IMAGE' ? { width: Number(agent.image_width), height: Number(agent.image_height) } : undefined;
    const estimate = estimateRunCost({ promptChars: rendered.length + (input.text?.length ?? 0), maxTokens: Number(agent.max_tokens), image }, model.prices);
    const maxAttempts = Number(agent.max_attempts);

    for (;;) {
      await op.checkpoint();
      const last = attempts[attempts.length - 1];
      if (attempts.length >= maxAttempts) {
        await finish(exec, 'FAILED', runError((last?.error_code as CanonicalStatus) ?? 'UNAVAILABLE', `no attempt left (max_attempts ${maxAttempts}); last: ${last?.message ?? 'none'}`, 'ATTEMPTS_EXHAUSTED'));
        return { execution: name };
      }
      // Connections whose key a provider refused during this run are not tried again.
      const refused = new Set(attempts.filter((a) => a.error_code === 'UNAUTHENTICATED' || a.error_code === 'PERMISSION_DENIED').map((a) => a.connection_id));
      const routing = await routeRun(db, { dialect, providers: deps.providers, billing: deps.billing }, {
        accountId: exec.account_id,
        model,
        connectionMode: agent.connection_mode,
        byokOnly: exec.byok_only === true || exec.byok_only === 1,
        estimate,
        exclude: refused,
        now: Date.now(),
      });
      const route: Route | undefined = routing.routes[0];
      if (!route) {
        const refusal = routingRefusal(routing.problem!);
        await finish(exec, 'FAILED', runError('FAILED_PRECONDITION', refusal.message, routing.problem));
        return { execution: name };
      }

      const startedAt = Date.now();
      const attempt: Attempt = { number: attempts.length + 1, start_time: iso(startedAt), connection_id: route.connection.id, connection_mode: route.mode };
      attempts.push(attempt);
      await update(id, {
        state: 'RUNNING',
        start_time: exec.start_time ?? startedAt,
        connection_id: route.connection.id,
        connection_mode: route.mode,
        attempts: dialect.json(attempts),
      });
      exec.start_time ??= startedAt;

      const adapter = deps.providers[model.provider as Provider]!;
      const request: ProviderRequest = {
        // A BYOK connection always holds its sealed key (create requires it).
        apiKey: route.mode === 'BYOK' ? deps.secrets.open(route.connection.api_key_sealed!) : (adapter.managedKey ?? ''),
        model: model.external_id,
        ...(input.text !== undefined && agent.output_format !== 'IMAGE' ? { system: rendered, user: input.text } : { user: rendered }),
        maxTokens: Number(agent.max_tokens),
        ...(agent.effort && { effort: String(agent.effort).toLowerCase() as ProviderRequest['effort'] }),
        outputFormat: agent.output_format,
        ...(agent.output_schema && { outputSchema: agent.output_schema }),
        ...(image && { image: { ...image, ...(agent.image_quality && { quality: QUALITY[agent.image_quality] }) } }),
        timeoutMs: timeoutSeconds(agent.timeout) * 1000,
      };

      let failure: ProviderFailure;
      try {
        const answer = await adapter.run(request);
        const output = await outputOf(exec, agent, answer, attempt.number);
        Object.assign(attempt, { end_time: iso(Date.now()), http_status: 200, usage: answer.usage });
        await recordAttempt(exec, model, attempts, attempt, answer.usage, { state: 'SUCCEEDED', output: dialect.json(output), end_time: Date.now() }, false);
        return { execution: name };
      } catch (err) {
        if (!(err instanceof ProviderFailure)) throw err;
        failure = err;
      }

      const f = failure.details;
      Object.assign(attempt, {
        end_time: iso(Date.now()),
        http_status: f.httpStatus,
        error_code: f.status,
        message: failure.message,
        ...(f.usage && { usage: f.usage }),
      });
      const attemptsLeft = attempts.length < maxAttempts;
      // A refused key is final for that connection, not for the run: the next connection gets the next attempt at once.
      if (f.keyRefused && attemptsLeft) {
        await recordAttempt(exec, model, attempts, attempt, f.usage, { state: 'QUEUED' }, true);
        continue;
      }
      if (!f.retryable || !attemptsLeft) {
        const error = runError(f.status, failure.message, f.reason ?? (attemptsLeft ? undefined : 'ATTEMPTS_EXHAUSTED'));
        await recordAttempt(exec, model, attempts, attempt, f.usage, { state: 'FAILED', error: dialect.json(error), end_time: Date.now() }, Boolean(f.keyRefused));
        return { execution: name };
      }
      await recordAttempt(exec, model, attempts, attempt, f.usage, { state: 'QUEUED' }, false);
      const delay = f.retryAfterMs !== undefined ? Math.min(f.retryAfterMs, 10 * MAX_BACKOFF_MS) : backoff(attempt.number);
      op.deferUntil(Date.now() + delay);
    }
  }

  return {
    run,
    async onFailure(op, error) {
      const exec = await load(String(op.payload.execution_id));
      if (!exec || FINAL_STATES.has(exec.state)) return;
      const attempts = dialect.readJson<Attempt[]>(exec.attempts) ?? [];
      for (const a of attempts) if (!a.end_time) Object.assign(a, { end_time: iso(Date.now()), http_status: 0, error_code: error.status, message: error.message });
      const body = renderError(error, `run_${randomUUID().replace(/-/g, '').slice(0, 20)}`).error;
      await finish(exec, error instanceof Cancelled ? 'CANCELLED' : 'FAILED', body, attempts);
    },
  };
}
