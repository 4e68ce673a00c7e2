import { Ajv } from 'ajv';
import type { SqlDialect } from '../platform/db/database.js';
import { FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { newId } from '../platform/resource/ids.js';
import { compileMapper } from '../platform/resource/mapper.js';
import { CONNECTION_MODES, EFFORTS, OUTPUT_FORMATS, type Catalogue, type CatalogueModel } from './catalogue.js';
import { AI_READ, AI_WRITE } from './instruction.resource.js';
import { findInstructionHead, insertAgentVersion, insertInstruction, insertInstructionVersion } from './ai.repo.js';

export const DEFAULT_IMAGE_SIZE = 1024;
const TIMEOUT_PATTERN = '^[0-9]{1,3}s$';

/** Seconds of an agent `timeout` (`"120s"`). */
export const timeoutSeconds = (timeout: string) => parseInt(timeout, 10);

/** The capability an output format needs from a model. */
export const CAPABILITY_FOR_FORMAT: Record<string, string> = { TEXT: 'TEXT_GENERATION', JSON: 'STRUCTURED_OUTPUT', IMAGE: 'IMAGE_GENERATION' };

/** Why `model` cannot run what an agent asks, as a field violation; undefined when it can. */
export function modelProblem(model: CatalogueModel, agent: { output_format: string; effort?: string | null; max_tokens: number }): { field: string; description: string } | undefined {
  if (model.state !== 'AVAILABLE') return { field: 'model', description: `model ${model.id} is ${model.state}; only AVAILABLE models run` };
  const needed = CAPABILITY_FOR_FORMAT[agent.output_format];
  if (!model.capabilities.includes(needed)) return { field: 'output_format', description: `${agent.output_format} output needs capability ${needed}, which model ${model.id} lacks` };
  if (agent.effort && !model.capabilities.includes('EFFORT')) return { field: 'effort', description: `model ${model.id} has no capability EFFORT` };
  if (agent.max_tokens > model.max_output_tokens) return { field: 'max_tokens', description: `must be at most ${model.max_output_tokens}, the max_output_tokens of model ${model.id}` };
  return undefined;
}

/** Fields a system agent supplies to its copy (body fields apply over them). */
const COPIED = [
  'display_name', 'description', 'preferred_model_id', 'allowed_model_ids', 'allowed_tools', 'max_tokens', 'effort', 'output_format',
  'output_schema', 'image_width', 'image_height', 'image_quality', 'connection_mode', 'max_attempts', 'timeout',
] as const;
const IMAGE_FIELDS = ['image_width', 'image_height', 'image_quality'] as const;

/** `ai_agents` (SPEC 2.3) with the version history of 2.4. */
export function agentResource(deps: { dialect: SqlDialect; catalogue: Catalogue }): ResourceDecl {
  const { dialect, catalogue } = deps;
  const schemaChecker = new Ajv({ strict: false });
  const json = <T>(v: unknown) => dialect.readJson<T>(v);

  function checkModels(row: Row, violations: Array<{ field: string; description: string }>): void {
    const agent = { output_format: row.output_format, effort: row.effort, max_tokens: Number(row.max_tokens) };
    const allowed = json<string[]>(row.allowed_model_ids) ?? [];
    const check = (id: string, field: string) => {
      const model = catalogue.models.get(id);
      if (!model) return violations.push({ field, description: `${id} is not a model of the ai_models catalogue` });
      const problem = modelProblem(model, agent);
      if (problem) violations.push({ field: problem.field === 'model' ? field : problem.field, description: problem.description });
    };
    if (row.preferred_model_id) check(row.preferred_model_id, 'preferred_model_id');
    for (const id of allowed) check(id, 'allowed_model_ids');
    if (allowed.length && row.preferred_model_id && !allowed.includes(row.preferred_model_id)) {
      violations.push({ field: 'allowed_model_ids', description: 'must include preferred_model_id when not empty' });
    }
  }

  /** The whole agent is validated on every write (SPEC 2.3 and the refusals of 4.4). */
  async function validate(ctx: WriteContext, row: Row, sent: (field: string) => boolean): Promise<void> {
    const violations: Array<{ field: string; description: string }> = [];
    if (!row.display_name) violations.push({ field: 'display_name', description: 'is required (or copy a system agent with source_system_agent)' });
    if (!row.instruction_id) {
      violations.push({ field: 'instruction_id', description: 'is required (or copy a system agent with source_system_agent)' });
    } else {
      const instruction = await findInstructionHead(ctx.trx, row.account_id, row.instruction_id);
      if (!instruction) violations.push({ field: 'instruction_id', description: 'is not an instruction of this account' });
      else if (row.instruction_version != null && Number(row.instruction_version) > Number(instruction.latest_version)) {
        violations.push({ field: 'instruction_version', description: `version ${row.instruction_version} does not exist (latest is ${instruction.latest_version})` });
      }
    }
    const seconds = timeoutSeconds(row.timeout);
    if (!(seconds >= 1 && seconds <= 600)) violations.push({ field: 'timeout', description: 'must be 1s to 600s' });
    if ((json<string[]>(row.allowed_tools) ?? []).length) violations.push({ field: 'allowed_tools', description: 'must be empty (tool calling is unavailable)' });
    const schema = json<Record<string, unknown> | null>(row.output_schema);
    if (row.output_format === 'JSON') {
      if (!schema) violations.push({ field: 'output_schema', description: 'is required when output_format is JSON' });
      else {
        try {
          schemaChecker.compile(schema);
        } catch (err) {
          violations.push({ field: 'output_schema', description: `is not a valid JSON Schema: ${(err as Error).message}` });
        }
      }
    } else if (schema) {
      violations.push({ field: 'output_schema', description: 'is allowed only when output_format is JSON' });
    }
    if (row.output_format !== 'IMAGE') {
      for (const f of IMAGE_FIELDS) if (row[f] != null && sent(f)) violations.push({ field: f, description: `is allowed only when output_format is IMAGE` });
    }
    checkModels(row, violations);
    if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
  }

  /** Image fields belong to IMAGE agents: defaults when an agent becomes one, cleared when it stops being one. */
  function settleImageFields(row: Row, sent: (field: string) => boolean): void {
    if (row.output_format === 'IMAGE') {
      row.image_width ??= DEFAULT_IMAGE_SIZE;
      row.image_height ??= DEFAULT_IMAGE_SIZE;
    } else {
      for (const f of IMAGE_FIELDS) if (!sent(f)) row[f] = null;
    }
  }

  async function copySystemAgent(ctx: WriteContext, row: Row): Promise<void> {
    const source = catalogue.systemAgents.get(row.source_system_agent);
    if (!source) throw InvalidArgument.field('source_system_agent', `${row.source_system_agent} is not an ai_system_agents entry`);
    if (!source.is_enabled) throw new FailedPrecondition('SYSTEM_AGENT_DISABLED', `system agent ${source.id} is disabled and cannot be copied`);
    const stored: Record<string, unknown> = {
      ...source,
      allowed_model_ids: dialect.json(source.allowed_model_ids),
      allowed_tools: dialect.json(source.allowed_tools),
      output_schema: source.output_schema ? dialect.json(source.output_schema) : null,
    };
    for (const field of COPIED) if (ctx.input[field] === undefined) row[field] = stored[field] ?? null;
    if (ctx.input.instruction_id === undefined) {
      // The instruction text becomes version 1 of a new instruction of the account (not linked to the original).
      const instructionId = newId(ctx.now);
      const note = `Copied from system agent ${source.id} (instruction_version ${source.instruction_version}).`;
      await insertInstruction(ctx.trx, {
        id: instructionId,
        account_id: row.account_id,
        display_name: source.display_name,
        description: note,
        variables: dialect.json(source.variables),
        active_version: 1,
        latest_version: 1,
        revision: 1,
        create_time: ctx.now,
        update_time: ctx.now,
      });
      await insertInstructionVersion(ctx.trx, {
        id: '1', account_id: row.account_id, ai_instruction_id: instructionId, version: 1, content: source.instruction_text,
        notes: note, created_by: `users/${ctx.caller.userId}`, revision: 1, create_time: ctx.now, update_time: ctx.now,
      });
      row.instruction_id = instructionId;
    }
  }

  let present: (row: Row) => Record<string, unknown>;
  async function recordVersion(ctx: WriteContext, row: Row): Promise<void> {
    const { etag: _etag, ...snapshot } = present(row);
    await insertAgentVersion(ctx.trx, {
      id: String(row.version),
      account_id: row.account_id,
      ai_agent_id: row.id,
      version: row.version,
      snapshot: dialect.json(snapshot),
      created_by: `users/${ctx.caller.userId}`,
      revision: 1,
      create_time: Number(row.update_time),
      update_time: Number(row.update_time),
    });
  }

  const decl: ResourceDecl = {
    collection: 'ai_agents',
    singular: 'AiAgent',
    table: 'ai_agents',
    description:
      'Reusable settings of an AI run. Every update raises `version` by one (even one that changes nothing) and keeps the settings as an immutable version under `versions`. Refused on create and update: a model that is not `AVAILABLE` or cannot run what the agent asks (`effort` without capability `EFFORT`, `JSON` without `STRUCTURED_OUTPUT`, `IMAGE` without `IMAGE_GENERATION`, `max_tokens` above the model\'s `max_output_tokens`), each as INVALID_ARGUMENT naming the field.',
    collectionPath: 'accounts/{account_id}/ai_agents',
    itemPath: 'accounts/{account_id}/ai_agents/{ai_agent_id}',
    fields: {
      display_name: { type: 'string', description: 'Required on create unless `source_system_agent` supplies it.', maxLength: 255, trim: true, notBlank: true, notNull: true },
      description: { type: 'string', description: 'Optional.', maxLength: 2000 },
      instruction_id: { type: 'string', description: "Id of the account's instruction. Required on create unless `source_system_agent` is set.", maxLength: 64 },
      instruction_version: { type: 'integer', description: "Pins one instruction version; absent: the instruction's `active_version` when a run is created.", minimum: 1 },
      preferred_model_id: { type: 'string', description: 'Model used when a run names none. Must be `AVAILABLE` and able to run what the agent asks.', maxLength: 64 },
      allowed_model_ids: { type: 'string_list', description: 'Only models a run may name. Empty means any available model; when not empty must include `preferred_model_id`.', maxItems: 50, itemMaxLength: 64, default: [] },
      max_tokens: { type: 'integer', description: "Output token limit; at most the model's `max_output_tokens`.", minimum: 1, maximum: 1_000_000, default: 16000 },
      effort: { type: 'enum', values: EFFORTS, description: 'Unset means the model default. Refused on a model without capability `EFFORT`.' },
      output_format: { type: 'enum', values: OUTPUT_FORMATS, description: '`TEXT`, `JSON` (needs `STRUCTURED_OUTPUT`), `IMAGE` (needs `IMAGE_GENERATION`; the rendered instruction is the prompt).', default: 'TEXT' },
      output_schema: { type: 'object', description: 'JSON Schema of the answer. Required when `output_format` is `JSON`, refused otherwise.', schema: { additionalProperties: true } },
      image_width: { type: 'integer', description: 'Pixels, 64 to 4096, default 1024 on IMAGE agents; refused on TEXT/JSON agents.', minimum: 64, maximum: 4096 },
      image_height: { type: 'integer', description: 'Pixels, 64 to 4096, default 1024 on IMAGE agents; refused on TEXT/JSON agents.', minimum: 64, maximum: 4096 },
      image_quality: { type: 'enum', values: EFFORTS, description: "Interpreted by the model's provider; unset means provider default. Refused on TEXT/JSON agents." },
      connection_mode: { type: 'enum', values: CONNECTION_MODES, description: 'Which connections runs may use.', default: 'ANY' },
      max_attempts: { type: 'integer', description: 'Attempts per run, 1 to 10.', minimum: 1, maximum: 10, default: 3 },
      timeout: { type: 'string', description: 'Per-attempt timeout: seconds with suffix `s`, `1s` to `600s`.', pattern: TIMEOUT_PATTERN, maxLength: 4, default: '120s' },
      allowed_tools: { type: 'string_list', description: 'Must be empty (tool calling is unavailable).', maxItems: 50, default: [] },
      is_enabled: { type: 'boolean', description: 'Whether the agent may run.', default: true },
      source_system_agent: {
        type: 'string',
        description: 'Create only: id of an `ai_system_agents` entry to copy (settings, and the instruction text as a new instruction of the account); other body fields apply over the copy. A disabled system agent cannot be copied (FAILED_PRECONDITION `SYSTEM_AGENT_DISABLED`).',
        behavior: ['IMMUTABLE'],
        maxLength: 64,
      },
      version: { type: 'integer', description: '1 on create, +1 on every update.', behavior: ['OUTPUT_ONLY'] },
    },
    filterable: ['allowed_model_ids', 'create_time', 'display_name', 'instruction_id', 'is_enabled', 'preferred_model_id', 'version'],
    sortable: ['create_time', 'display_name'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { requestId: true, validateOnly: true },
    rights: { read: AI_READ, write: AI_WRITE },
    hooks: {
      async beforeCreate(ctx, row) {
        const sent = (f: string) => ctx.input[f] !== undefined && ctx.input[f] !== null;
        if (row.source_system_agent) await copySystemAgent(ctx, row);
        settleImageFields(row, sent);
        row.version = 1;
        await validate(ctx, row, sent);
      },
      async afterCreate(ctx, row) {
        await recordVersion(ctx, row);
      },
      async beforeUpdate(ctx, next, previous) {
        const sent = (f: string) => ctx.updatedPaths.includes(f) && ctx.input[f] != null;
        settleImageFields(next, sent);
        next.version = Number(previous.version) + 1;
        await validate(ctx, next, sent);
      },
      async afterUpdate(ctx, row) {
        await recordVersion(ctx, row);
      },
    },
  };
  present = compileMapper(decl, dialect);
  return decl;
}

/** `ai_agents/{a}/versions` (SPEC 2.4): every version from 1 to the current one, newest first; kept (unlisted) after the agent is deleted. */
export const agentVersionResource: ResourceDecl = {
  collection: 'versions',
  singular: 'AiAgentVersion',
  pluralNoun: 'AiAgentVersions',
  table: 'ai_agent_versions',
  description: 'Immutable settings of an agent at one version. `create_time` is when the version took effect.',
  collectionPath: 'accounts/{account_id}/ai_agents/{ai_agent_id}/versions',
  itemPath: 'accounts/{account_id}/ai_agents/{ai_agent_id}/versions/{version}',
  parentTable: 'ai_agents',
  fields: {
    ai_agent_id: { type: 'string', description: 'The agent (fixed by the URL).', behavior: ['OUTPUT_ONLY'] },
    version: { type: 'integer', description: 'The version number; also the resource id.', behavior: ['OUTPUT_ONLY'], notNull: true },
    snapshot: { type: 'object', description: 'The agent as it stood: every agent field except `etag`.', behavior: ['OUTPUT_ONLY'], schema: { additionalProperties: true } },
    created_by: { type: 'string', description: 'The user whose write produced the version, `users/{user}`.', behavior: ['OUTPUT_ONLY'] },
  },
  filterable: ['created_by'],
  sortable: ['version'],
  defaultOrder: 'version desc',
  methods: ['list', 'get'],
  rights: { read: AI_READ, write: AI_WRITE },
};
