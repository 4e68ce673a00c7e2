import type { Database } from '../platform/db/database.js';
import { read } from '../platform/auth/rights.js';
import type { FieldDecl, ResourceDecl } from '../platform/resource/declaration.js';
import { MONEY_SCHEMA, moneyFromNanos, nanosFromDecimal, type ModelPrices } from '../ai-billing/index.js';
import shippedModels from './catalogue/models.json' with { type: 'json' };
import shippedAgents from './catalogue/system-agents.json' with { type: 'json' };
import { upsertModel, upsertSystemAgent } from './ai.repo.js';

export const CAPABILITIES = ['TEXT_GENERATION', 'STRUCTURED_OUTPUT', 'EFFORT', 'IMAGE_GENERATION', 'VISION', 'TOOL_CALLING'] as const;
export const MODEL_STATES = ['AVAILABLE', 'DEPRECATED', 'DISABLED'] as const;
export const TIERS = ['FAST', 'BALANCED', 'POWERFUL'] as const;
export const EFFORTS = ['LOW', 'MEDIUM', 'HIGH', 'XHIGH', 'MAX'] as const;
export const OUTPUT_FORMATS = ['TEXT', 'JSON', 'IMAGE'] as const;
export const CONNECTION_MODES = ['ANY', 'BYOK_ONLY', 'MANAGED_ONLY'] as const;
export const PROVIDERS = ['openai', 'anthropic', 'openai_compatible'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Prices of a model in nano-dollars (declared by AI billing, which prices runs). */
export type { ModelPrices };

export interface CatalogueModel {
  id: string;
  provider: Provider;
  external_id: string;
  display_name: string;
  capabilities: string[];
  max_input_tokens: number;
  max_output_tokens: number;
  state: (typeof MODEL_STATES)[number];
  tier: (typeof TIERS)[number];
  platform_priced: boolean;
  prices: ModelPrices;
  createTime: number;
}

export interface SystemAgent {
  id: string;
  display_name: string;
  description?: string;
  instruction_text: string;
  instruction_version: number;
  variables: string[];
  preferred_model_id?: string;
  allowed_model_ids: string[];
  allowed_tools: string[];
  max_tokens: number;
  effort?: string;
  output_format: string;
  output_schema?: Record<string, unknown>;
  image_width?: number;
  image_height?: number;
  image_quality?: string;
  connection_mode: string;
  max_attempts: number;
  timeout: string;
  is_enabled: boolean;
  createTime: number;
}

/** The platform catalogues, in memory (rules and pricing) and in their tables (List/Get). */
export interface Catalogue {
  models: Map<string, CatalogueModel>;
  systemAgents: Map<string, SystemAgent>;
}

/** Operator-configured models of the OpenAI-compatible provider (local model servers). */
export interface CompatibleModelsConfig {
  models: string[];
  maxOutputTokens: number;
}

function prices(raw: Record<string, string>): ModelPrices {
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, nanosFromDecimal(v)]));
}

/** The shipped catalogue plus the operator's OpenAI-compatible models (free of charge: they run on the operator's hardware). */
export function loadCatalogue(compatible: CompatibleModelsConfig): Catalogue {
  const models = new Map<string, CatalogueModel>();
  for (const m of shippedModels as any[]) {
    models.set(m.id, { ...m, prices: prices(m.prices), createTime: Date.parse(m.added) });
  }
  for (const external of compatible.models) {
    const id = `compat-${external.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
    models.set(id, {
      id,
      provider: 'openai_compatible',
      external_id: external,
      display_name: `${external} (self-hosted)`,
      capabilities: ['TEXT_GENERATION', 'STRUCTURED_OUTPUT'],
      max_input_tokens: 32768,
      max_output_tokens: compatible.maxOutputTokens,
      state: 'AVAILABLE',
      tier: 'FAST',
      platform_priced: true,
      prices: { input_per_million: 0, output_per_million: 0, cached_input_per_million: 0 },
      createTime: Date.UTC(2026, 0, 1),
    });
  }
  const systemAgents = new Map<string, SystemAgent>();
  for (const a of shippedAgents as any[]) systemAgents.set(a.id, { ...a, createTime: Date.parse(a.added) });
  return { models, systemAgents };
}

/**
 * Writes the catalogue into its tables (insert or update by id), so List/Get filter and page like
 * every other collection. Safe to run from several processes at once.
 */
export async function syncCatalogue(database: Database, catalogue: Catalogue): Promise<void> {
  const { db, dialect } = database;
  const now = Date.now();
  for (const m of catalogue.models.values()) {
    const row = {
      provider: m.provider,
      external_id: m.external_id,
      display_name: m.display_name,
      capabilities: dialect.json(m.capabilities),
      max_input_tokens: m.max_input_tokens,
      max_output_tokens: m.max_output_tokens,
      state: m.state,
      tier: m.tier,
      platform_priced: dialect.bool(m.platform_priced),
      pricing: dialect.json(m.prices),
      update_time: now,
    };
    await upsertModel(db, m.id, m.createTime, row);
  }
  for (const a of catalogue.systemAgents.values()) {
    const row = {
      display_name: a.display_name,
      description: a.description ?? null,
      instruction_text: a.instruction_text,
      instruction_version: a.instruction_version,
      variables: dialect.json(a.variables),
      preferred_model_id: a.preferred_model_id ?? null,
      allowed_model_ids: dialect.json(a.allowed_model_ids),
      allowed_tools: dialect.json(a.allowed_tools),
      max_tokens: a.max_tokens,
      effort: a.effort ?? null,
      output_format: a.output_format,
      output_schema: a.output_schema ? dialect.json(a.output_schema) : null,
      image_width: a.image_width ?? null,
      image_height: a.image_height ?? null,
      image_quality: a.image_quality ?? null,
      connection_mode: a.connection_mode,
      max_attempts: a.max_attempts,
      timeout: a.timeout,
      is_enabled: dialect.bool(a.is_enabled),
      update_time: now,
    };
    await upsertSystemAgent(db, a.id, a.createTime, row);
  }
}

const out = (f: Omit<FieldDecl, 'behavior'>): FieldDecl => ({ ...f, behavior: ['OUTPUT_ONLY'] });

const PRICE_KEYS: Array<[keyof ModelPrices, string]> = [
  ['input_per_million', 'Per million input tokens (not read from cache).'],
  ['output_per_million', 'Per million output tokens.'],
  ['cached_input_per_million', 'Per million input tokens read from the provider cache.'],
  ['cache_write_per_million', 'Per million input tokens written to the provider cache.'],
  ['image_per_megapixel', 'Per megapixel of generated image.'],
  ['per_image', 'Per generated image.'],
];

/** `ai_models` (SPEC 2.8): read-only platform catalogue. */
export const aiModelResource: ResourceDecl = {
  collection: 'ai_models',
  singular: 'AiModel',
  table: 'ai_models',
  description: 'Platform catalogue of models (read-only). Only `AVAILABLE` models run; `pricing` is what a run on the platform key costs.',
  catalogue: true,
  collectionPath: 'ai_models',
  itemPath: 'ai_models/{ai_model_id}',
  fields: {
    provider: out({ type: 'enum', values: PROVIDERS, description: 'Provider serving the model.' }),
    external_id: out({ type: 'string', description: "Provider's own identifier; can move to a newer snapshot while `id` stays." }),
    display_name: out({ type: 'string', description: 'Label.', notNull: true }),
    capabilities: out({ type: 'string_list', description: `What the model can do: ${CAPABILITIES.join(', ')}. Filter with \`capabilities:"EFFORT"\` (has).` }),
    max_input_tokens: out({ type: 'integer', description: 'Largest prompt.' }),
    max_output_tokens: out({ type: 'integer', description: 'Largest agent `max_tokens` that can run on it.' }),
    state: out({ type: 'enum', values: MODEL_STATES, description: 'Only `AVAILABLE` models run.' }),
    tier: out({ type: 'enum', values: TIERS, description: 'Rough class of speed and strength.' }),
    platform_priced: out({ type: 'boolean', description: 'Whether a run on the platform key can be charged; false: runs only on the account\'s own connection (`MODEL_NOT_PRICED`).' }),
    pricing: out({
      type: 'object',
      column: false,
      description: 'Prices charged for runs on the platform key (Money, USD). Absent keys cost nothing.',
      schema: { properties: Object.fromEntries(PRICE_KEYS.map(([k]) => [k, MONEY_SCHEMA])) },
    }),
  },
  filterable: ['capabilities', 'create_time', 'display_name', 'external_id', 'provider', 'state', 'tier'],
  sortable: ['create_time', 'display_name'],
  defaultOrder: 'display_name asc',
  methods: ['list', 'get'],
  rights: { read: read(''), write: read('') },
  hooks: {
    present(row, resource) {
      const stored = typeof row.pricing === 'string' ? JSON.parse(row.pricing) : row.pricing;
      resource.pricing = Object.fromEntries(Object.entries(stored ?? {}).map(([k, v]) => [k, moneyFromNanos(v as number)]));
    },
  },
};

/** `ai_system_agents` (SPEC 2.9): read-only platform catalogue of agents to copy. */
export const aiSystemAgentResource: ResourceDecl = {
  collection: 'ai_system_agents',
  singular: 'AiSystemAgent',
  table: 'ai_system_agents',
  description: 'Platform catalogue of agents (read-only). Copy one with `source_system_agent` on agent create; a copy does not follow later changes.',
  catalogue: true,
  collectionPath: 'ai_system_agents',
  itemPath: 'ai_system_agents/{ai_system_agent_id}',
  fields: {
    display_name: out({ type: 'string', description: 'Label.', notNull: true }),
    description: out({ type: 'string', description: 'What the agent does.' }),
    instruction_text: out({ type: 'string', maxLength: 100_000, description: 'Template with `{{variable}}`; becomes version 1 of the copy\'s instruction.' }),
    instruction_version: out({ type: 'integer', description: 'Rises when the platform changes the text.' }),
    variables: out({ type: 'string_list', description: 'Names the template uses.' }),
    preferred_model_id: out({ type: 'string', description: 'Model used when a run names none.' }),
    allowed_model_ids: out({ type: 'string_list', description: 'Only models a run may name; empty means any.' }),
    allowed_tools: out({ type: 'string_list', description: 'Always empty.' }),
    max_tokens: out({ type: 'integer', description: 'Output token limit.' }),
    effort: out({ type: 'enum', values: EFFORTS, description: 'Effort level; absent means the model default.' }),
    output_format: out({ type: 'enum', values: OUTPUT_FORMATS, description: 'TEXT, JSON or IMAGE.' }),
    output_schema: out({ type: 'object', description: 'JSON Schema of the answer (JSON agents only).', schema: { additionalProperties: true } }),
    image_width: out({ type: 'integer', description: 'Pixels (IMAGE agents only).' }),
    image_height: out({ type: 'integer', description: 'Pixels (IMAGE agents only).' }),
    image_quality: out({ type: 'enum', values: EFFORTS, description: 'Image quality (IMAGE agents only).' }),
    connection_mode: out({ type: 'enum', values: CONNECTION_MODES, description: 'Which connections runs may use.' }),
    max_attempts: out({ type: 'integer', description: 'Attempts per run.' }),
    timeout: out({ type: 'string', description: 'Per-attempt timeout, seconds with suffix `s`.' }),
    is_enabled: out({ type: 'boolean', description: 'A disabled system agent cannot be copied.' }),
  },
  filterable: ['create_time', 'display_name'],
  sortable: ['create_time', 'display_name'],
  defaultOrder: 'display_name asc',
  methods: ['list', 'get'],
  rights: { read: read(''), write: read('') },
};
