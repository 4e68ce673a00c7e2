import type { SqlDialect } from '../platform/db/database.js';
import { FailedPrecondition, InvalidArgument, type FieldViolation } from '../platform/errors.js';
import type { Operations } from '../platform/jobs/operations.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { estimateRunCost, MONEY_SCHEMA, moneyFromNanos, type BillingService } from '../ai-billing/index.js';
import { ERROR_SCHEMA } from '../platform/http/openapi-shapes.js';
import { modelProblem } from './agent.resource.js';
import type { Catalogue } from './catalogue.js';
import { AI_READ, AI_WRITE } from './instruction.resource.js';
import { findAgent, findInstruction, findInstructionVersion } from './ai.repo.js';
import type { Providers } from './providers/index.js';
import { ZERO_USAGE } from './providers/provider.js';
import { routeRun, type RoutingProblem } from './routing.js';
import { placeholdersOf, renderTemplate } from './template.js';

export const AI_EXECUTION = 'AI_EXECUTION';
export const FINAL_STATES = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED']);
export const MAX_METADATA_BYTES = 16 * 1024;

const PROBLEM_TEXT: Record<RoutingProblem, string> = {
  NO_USABLE_CONNECTION: 'no enabled connection of the model\'s provider that the agent\'s connection_mode allows',
  MODEL_NOT_PRICED: 'the model is not priced for runs on the platform key (platform_priced false); add an own key (BYOK) for its provider',
  INSUFFICIENT_BALANCE: 'the AI balance cannot cover this run on the platform key',
  RUN_COST_LIMIT_EXCEEDED: 'this run could cost more than the account\'s run_limit',
  MONTHLY_LIMIT_REACHED: 'this run could take the month\'s spending past the account\'s monthly_limit',
};

export function routingRefusal(problem: RoutingProblem): FailedPrecondition {
  return new FailedPrecondition(problem, PROBLEM_TEXT[problem]);
}

const USAGE_SCHEMA = {
  properties: Object.fromEntries(Object.keys(ZERO_USAGE).map((k) => [k, { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }])),
};
const out = { behavior: ['OUTPUT_ONLY'] as Array<'OUTPUT_ONLY'> };

/** The variables an instruction version uses must be filled exactly: every one, nothing else. */
function checkVariables(content: string, values: Record<string, unknown>): void {
  const used = placeholdersOf(content);
  const violations: FieldViolation[] = [];
  for (const name of used) if (!Object.hasOwn(values, name)) violations.push({ field: `input.variables.${name}`, description: 'is used by the instruction and must be given' });
  for (const name of Object.keys(values)) if (!used.includes(name)) violations.push({ field: `input.variables.${name}`, description: 'is not a variable the instruction uses' });
  if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
}

/**
 * `ai_executions` (SPEC 2.6, 3.1): one persistent run of an agent. Create validates everything that
 * can be known up front, resolves the agent and instruction versions, and answers 201 `QUEUED`; an
 * AI_EXECUTION Operation (same transaction) runs it on a worker.
 */
export function executionResource(deps: { dialect: SqlDialect; catalogue: Catalogue; providers: Providers; billing: BillingService; operations: Operations }): ResourceDecl {
  const { dialect, catalogue } = deps;

  async function beforeCreate(ctx: WriteContext, row: Row): Promise<void> {
    const agent = await findAgent(ctx.trx, row.account_id, row.agent_id);
    if (!agent) throw InvalidArgument.field('agent_id', `${row.agent_id} is not an agent of this account`);
    if (!(agent.is_enabled === true || agent.is_enabled === 1)) throw new FailedPrecondition('AGENT_DISABLED', `agent ${agent.id} is disabled`);

    const allowed = dialect.readJson<string[]>(agent.allowed_model_ids) ?? [];
    const modelId: string | undefined = row.model_id ?? agent.preferred_model_id ?? undefined;
    if (!modelId) throw InvalidArgument.field('model_id', 'is required: the agent has no preferred_model_id');
    if (allowed.length && !allowed.includes(modelId)) throw InvalidArgument.field('model_id', `${modelId} is not among the agent's allowed_model_ids`);
    const model = catalogue.models.get(modelId);
    if (!model) throw InvalidArgument.field('model_id', `${modelId} is not a model of the ai_models catalogue`);
    const problem = modelProblem(model, { output_format: agent.output_format, effort: agent.effort, max_tokens: Number(agent.max_tokens) });
    if (problem) throw InvalidArgument.field('model_id', `the agent cannot run on ${modelId}: ${problem.description}`);

    const instruction = await findInstruction(ctx.trx, row.account_id, agent.instruction_id);
    if (!instruction) throw new FailedPrecondition('INSTRUCTION_MISSING', `the agent's instruction ${agent.instruction_id} no longer exists`);
    const instructionVersion = Number(agent.instruction_version ?? instruction.active_version);
    const version = await findInstructionVersion(ctx.trx, instruction.id, instructionVersion);
    if (!version) throw new FailedPrecondition('INSTRUCTION_MISSING', `version ${instructionVersion} of instruction ${instruction.id} does not exist`);

    const input = dialect.readJson<{ variables?: Record<string, string | number | boolean>; text?: string }>(row.input) ?? {};
    checkVariables(version.content, input.variables ?? {});
    if (row.metadata !== null && Buffer.byteLength(String(row.metadata)) > MAX_METADATA_BYTES) {
      throw InvalidArgument.field('metadata', `must be at most ${MAX_METADATA_BYTES} bytes as JSON`);
    }
    if (row.source_id != null && row.source_module == null) throw InvalidArgument.field('source_id', 'needs source_module');

    const rendered = renderTemplate(version.content, input.variables ?? {});
    const image = agent.output_format === 'IMAGE' ? { width: Number(agent.image_width), height: Number(agent.image_height) } : undefined;
    const estimate = estimateRunCost({ promptChars: rendered.length + (input.text?.length ?? 0), maxTokens: Number(agent.max_tokens), image }, model.prices);
    const route = await routeRun(ctx.trx, deps, {
      accountId: row.account_id,
      model,
      connectionMode: agent.connection_mode,
      byokOnly: false,
      estimate,
      exclude: new Set(),
      now: ctx.now,
    });
    if (route.problem) throw routingRefusal(route.problem);

    Object.assign(row, {
      agent_version: Number(agent.version),
      instruction_id: instruction.id,
      instruction_version: instructionVersion,
      model_id: model.id,
      provider: model.provider,
      state: 'QUEUED',
      // The platform key could not take it (price, balance, limit): own keys only, as routing found them.
      byok_only: dialect.bool(route.managedProblem !== undefined),
      usage: dialect.json(ZERO_USAGE),
      attempts: dialect.json([]),
      cancel_requested: dialect.bool(false),
    });
    row.operation_id = await deps.operations.enqueue(ctx.trx, { type: AI_EXECUTION, accountId: row.account_id, payload: { execution_id: row.id }, step: 'QUEUED' }, ctx.now);
    ctx.afterCommit(() => deps.operations.wake());
  }

  return {
    collection: 'ai_executions',
    singular: 'AiExecution',
    table: 'ai_executions',
    description:
      'One persistent run of an agent; poll it until `state` is final. Create checks everything up front (variables filling exactly the instruction\'s `{{variables}}`, the model, the agent, a usable connection, price, balance and limits) and answers 201 `QUEUED`; a worker runs the attempts. A repeated `request_id` answers the first run. Refusal reasons (FAILED_PRECONDITION): `AGENT_DISABLED`, `NO_USABLE_CONNECTION`, `MODEL_NOT_PRICED`, `INSUFFICIENT_BALANCE`, `RUN_COST_LIMIT_EXCEEDED`, `MONTHLY_LIMIT_REACHED`.',
    collectionPath: 'accounts/{account_id}/ai_executions',
    itemPath: 'accounts/{account_id}/ai_executions/{ai_execution_id}',
    fields: {
      agent_id: { type: 'string', description: 'The agent to run; fixed.', behavior: ['REQUIRED', 'IMMUTABLE'], maxLength: 64 },
      agent_version: { type: 'integer', description: 'The agent version resolved at creation.', ...out },
      instruction_id: { type: 'string', description: "The agent's instruction.", ...out },
      instruction_version: { type: 'integer', description: 'The instruction version resolved at creation.', ...out },
      model_id: { type: 'string', description: "Defaults to the agent's `preferred_model_id`; only `allowed_model_ids` when the agent lists them.", behavior: ['IMMUTABLE'], maxLength: 64 },
      provider: { type: 'string', description: 'Provider of the model.', ...out },
      input: {
        type: 'object',
        description: '`variables` (strings, integers or booleans filling exactly every `{{variable}}` the instruction version uses) and optional `text` (the user message; the rendered instruction is then the system message).',
        behavior: ['IMMUTABLE'],
        default: {},
        schema: {
          properties: {
            variables: { type: 'object', maxProperties: 100, additionalProperties: { type: ['string', 'integer', 'boolean'], maxLength: 100_000, format: 'int64', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } },
            text: { type: 'string', maxLength: 200_000 },
          },
          additionalProperties: false,
        },
      },
      state: { type: 'enum', values: ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'], description: 'Final: SUCCEEDED, FAILED, CANCELLED, EXPIRED.', ...out },
      connection_id: { type: 'string', description: 'Connection of the latest attempt.', ...out },
      connection_mode: { type: 'enum', values: ['BYOK', 'MANAGED'], description: 'Mode of the latest attempt\'s connection.', ...out },
      usage: { type: 'object', description: 'Sums over attempts.', schema: USAGE_SCHEMA, ...out },
      cost: { type: 'object', column: false, description: 'Charged to the AI balance, summed over attempts; present once a MANAGED attempt was charged.', schema: MONEY_SCHEMA, ...out },
      output: {
        type: 'object',
        description: 'On SUCCEEDED: `text`, or `json` (JSON agents, validated against `output_schema`), or `artifacts` (IMAGE agents: `storage_key`, `mime_type`, `width`, `height`, `byte_size`), and `output_truncated`.',
        schema: { additionalProperties: true },
        ...out,
      },
      error: { type: 'object', description: 'Why a FAILED, EXPIRED or CANCELLED run stopped, in the error-body shape.', schema: ERROR_SCHEMA, ...out },
      attempts: {
        type: 'object',
        description: 'Each attempt: `number`, `start_time`, `end_time`, `http_status` (0 when no response arrived), `error_code`, `message`, `usage`, `connection_id`.',
        schema: { type: 'array', maxItems: 100, items: { type: 'object', additionalProperties: true } },
        ...out,
      },
      source_module: { type: 'string', description: "Caller's own word for who started the run; stored, filterable; fixed.", behavior: ['IMMUTABLE'], maxLength: 64 },
      source_id: { type: 'string', description: "Caller's reference within `source_module` (which it requires); fixed.", behavior: ['IMMUTABLE'], maxLength: 255 },
      metadata: { type: 'object', description: 'Correlation returned as sent; at most 16 KB; not filterable.', behavior: ['IMMUTABLE'], schema: { additionalProperties: true } },
      expire_time: { type: 'timestamp', description: 'Deadline for starting; a run not started by then ends EXPIRED without calling the provider (a past time is accepted).', behavior: ['IMMUTABLE'] },
      cancel_requested: { type: 'boolean', description: 'Set by `:cancel`.', ...out },
      start_time: { type: 'timestamp', description: 'Start of the first attempt.', ...out },
      end_time: { type: 'timestamp', description: 'When a final state was reached.', ...out },
    },
    filterable: ['agent_id', 'connection_id', 'connection_mode', 'create_time', 'end_time', 'expire_time', 'model_id', 'provider', 'source_id', 'source_module', 'start_time', 'state'],
    sortable: ['create_time', 'expire_time'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create'],
    options: { requestId: true },
    rights: { read: AI_READ, write: AI_WRITE },
    events: {
      transitions: [
        {
          // Written by the execution worker (execution.worker.ts), which ends runs outside the engine.
          type: 'ai_execution.finished',
          description: 'A run reached a final state (SUCCEEDED, FAILED, EXPIRED or CANCELLED); `data` is the run with its output or error.',
          when: (next, previous) => Boolean(next && FINAL_STATES.has(next.state) && !FINAL_STATES.has(previous?.state)),
        },
      ],
    },
    hooks: {
      beforeCreate,
      present(row, resource) {
        if (row.cost_nanos !== null && row.cost_nanos !== undefined) resource.cost = moneyFromNanos(row.cost_nanos);
      },
    },
    customMethods: [
      {
        verb: 'cancel',
        on: 'item',
        summary: 'Request cancellation of a run',
        description:
          'Asks the worker to stop the run: it ends `CANCELLED` at its next checkpoint (before an attempt starts, or while it waits to retry). Past the last checkpoint (an answer being recorded) the run finishes anyway. Answers the run as the request left it; FAILED_PRECONDITION `EXECUTION_FINISHED` when it is already final.',
        access: 'write',
        async mutate(ctx, next, previous) {
          if (FINAL_STATES.has(previous.state)) throw new FailedPrecondition('EXECUTION_FINISHED', `the run already ended ${previous.state}`);
          next.cancel_requested = dialect.bool(true);
          // The Operation carries the request to the worker's checkpoints; a run waiting to retry is woken now.
          await deps.operations.requestCancel(ctx.trx, previous.operation_id, ctx.now);
          ctx.afterCommit(() => deps.operations.wake());
        },
      },
    ],
  };
}
