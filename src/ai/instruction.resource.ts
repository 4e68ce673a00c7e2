import type { SqlDialect } from '../platform/db/database.js';
import { read, write } from '../platform/auth/rights.js';
import { FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { checkTemplate, checkVariables } from './template.js';
import { findInstructionVersion, firstAgentUsingInstruction, insertInstructionVersion, lockInstruction, updateInstructionVersions } from './ai.repo.js';

export const AI_READ = read('ai');
export const AI_WRITE = write('ai');
const MAX_CONTENT = 100_000;

async function insertVersion(ctx: WriteContext, instruction: Row, version: number, content: string, notes: unknown): Promise<void> {
  await insertInstructionVersion(ctx.trx, {
    id: String(version),
    account_id: instruction.account_id,
    ai_instruction_id: instruction.id,
    version,
    content,
    notes: typeof notes === 'string' ? notes : null,
    created_by: `users/${ctx.caller.userId}`,
    revision: 1,
    create_time: ctx.now,
    update_time: ctx.now,
  });
}

/**
 * `ai_instructions` (SPEC 2.7; endpoints designed here): a template with declared `variables`,
 * immutable numbered versions, and the `active_version` runs use unless an agent pins one.
 * Create makes version 1 from `content`; PATCH `active_version` moves it; new versions are created
 * under `versions`.
 */
export function instructionResource(deps: { dialect: SqlDialect }): ResourceDecl {
  const { dialect } = deps;
  return {
    collection: 'ai_instructions',
    singular: 'AiInstruction',
    table: 'ai_instructions',
    description:
      'A versioned instruction template of the account. `{{name}}` in a version is replaced by the run\'s value for `name`, which must be one of `variables`; other text, other braces included, is sent as written. Create makes version 1 (active) from `content`; `POST .../versions` adds the next version; PATCH `active_version` moves the version runs use. Delete is refused while an agent uses the instruction.',
    collectionPath: 'accounts/{account_id}/ai_instructions',
    itemPath: 'accounts/{account_id}/ai_instructions/{ai_instruction_id}',
    fields: {
      display_name: { type: 'string', description: 'Label.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
      description: { type: 'string', description: 'What the instruction is for.', maxLength: 2000 },
      variables: {
        type: 'string_list',
        description: 'Names a version may use as `{{name}}` (a letter or `_`, then letters, digits, `_`; at most 64 characters). A change is refused while the active version uses a name it drops.',
        maxItems: 100,
        itemMinLength: 1,
        itemMaxLength: 64,
        default: [],
      },
      content: {
        type: 'string',
        description: 'Create only: the template text of version 1. Later versions are created under `versions`.',
        behavior: ['INPUT_ONLY', 'IMMUTABLE', 'REQUIRED'],
        column: false,
        maxLength: MAX_CONTENT,
        example: 'Write a two-sentence description of {{product}} for our shop.',
      },
      notes: { type: 'string', description: 'Create only: why version 1 exists.', behavior: ['INPUT_ONLY', 'IMMUTABLE'], column: false, maxLength: 2000 },
      active_version: {
        type: 'integer',
        description: 'The version runs use unless their agent pins one. 1 after create; PATCH moves it to any existing version.',
        minimum: 1,
      },
      latest_version: { type: 'integer', description: 'Number of the newest version.', behavior: ['OUTPUT_ONLY'] },
    },
    filterable: ['create_time', 'display_name', 'active_version'],
    sortable: ['create_time', 'display_name'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { requestId: true, validateOnly: true },
    rights: { read: AI_READ, write: AI_WRITE },
    hooks: {
      beforeCreate(ctx, row) {
        const variables = dialect.readJson<string[]>(row.variables) ?? [];
        checkVariables(variables);
        if (row.active_version !== null && row.active_version !== undefined && row.active_version !== 1) {
          throw InvalidArgument.field('active_version', 'is 1 on create (the only version)');
        }
        checkTemplate(String(ctx.input.content), variables, 'content');
        row.active_version = 1;
        row.latest_version = 1;
      },
      async afterCreate(ctx, row) {
        await insertVersion(ctx, row, 1, String(ctx.input.content), ctx.input.notes);
      },
      async beforeUpdate(ctx, next, previous) {
        const variables = dialect.readJson<string[]>(next.variables) ?? [];
        if (ctx.updatedPaths.includes('variables')) checkVariables(variables);
        if (next.active_version === null) next.active_version = previous.active_version;
        const active = Number(next.active_version);
        if (active > Number(previous.latest_version)) {
          throw InvalidArgument.field('active_version', `version ${active} does not exist (latest is ${previous.latest_version})`);
        }
        const version = await findInstructionVersion(ctx.trx, previous.id, active);
        checkTemplate(version!.content, variables, ctx.updatedPaths.includes('active_version') ? 'active_version' : 'variables');
      },
      async beforeDelete(ctx, row) {
        const agent = await firstAgentUsingInstruction(ctx.trx, row.account_id, row.id);
        if (agent) throw new FailedPrecondition('INSTRUCTION_IN_USE', `agent ${agent.id} uses this instruction; point it elsewhere or delete it first`);
      },
    },
  };
}

/** `ai_instructions/{i}/versions` (SPEC 2.7): immutable; created with the next number; never edited or deleted. */
export function instructionVersionResource(deps: { dialect: SqlDialect }): ResourceDecl {
  const { dialect } = deps;
  return {
    collection: 'versions',
    singular: 'AiInstructionVersion',
    pluralNoun: 'AiInstructionVersions',
    table: 'ai_instruction_versions',
    description:
      'Immutable versions of an instruction, numbered from 1. Create adds the next one (number assigned by the server); its `content` may use only the instruction\'s `variables`. With `activate: true` it also becomes the active version.',
    collectionPath: 'accounts/{account_id}/ai_instructions/{ai_instruction_id}/versions',
    itemPath: 'accounts/{account_id}/ai_instructions/{ai_instruction_id}/versions/{version}',
    parentTable: 'ai_instructions',
    fields: {
      ai_instruction_id: { type: 'string', description: 'The instruction (fixed by the URL).', behavior: ['OUTPUT_ONLY'] },
      version: { type: 'integer', description: 'The version number; also the resource id. One more than the latest.', behavior: ['OUTPUT_ONLY'], notNull: true },
      content: { type: 'string', description: 'Template text with `{{variable}}` placeholders.', behavior: ['REQUIRED'], maxLength: MAX_CONTENT },
      notes: { type: 'string', description: 'Why the version exists.', maxLength: 2000 },
      created_by: { type: 'string', description: 'The user who created it, `users/{user}`.', behavior: ['OUTPUT_ONLY'] },
      activate: { type: 'boolean', description: 'Create only: also make it the active version.', behavior: ['INPUT_ONLY'], column: false },
    },
    filterable: ['created_by', 'create_time'],
    sortable: ['version'],
    defaultOrder: 'version desc',
    methods: ['list', 'get', 'create'],
    rights: { read: AI_READ, write: AI_WRITE },
    hooks: {
      async beforeCreate(ctx, row) {
        // The instruction row is locked: concurrent creates get consecutive numbers, never the same one.
        const instruction = await lockInstruction(ctx.trx, dialect, ctx.params.ai_instruction_id);
        checkTemplate(row.content, dialect.readJson<string[]>(instruction.variables) ?? [], 'content');
        const version = Number(instruction.latest_version) + 1;
        row.id = String(version);
        row.version = version;
        row.created_by = `users/${ctx.caller.userId}`;
        await updateInstructionVersions(ctx.trx, instruction.id, {
          latest_version: version,
          ...(ctx.input.activate === true && { active_version: version }),
          revision: Number(instruction.revision) + 1,
          update_time: Math.max(ctx.now, Number(instruction.update_time)),
        });
      },
    },
  };
}
