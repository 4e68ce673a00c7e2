/**
 * One AI agent: its settings (instruction, model from the catalogue with its state and price,
 * which connections runs may use, limits) as a form — create at `ai_agents/new`, edit with
 * `If-Match` — and a run panel filling the instruction's variables.
 */
import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, Card, Group, JsonInput, Loader, MultiSelect, NumberInput, Select, SimpleGrid, Stack, Switch, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from '@tanstack/react-router';
import { data, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { modelLabel, useAccount, useModels, words } from './common';

type Agent = Schemas['AiAgent'];

interface Values {
  display_name: string;
  description: string;
  instruction_id: string | null;
  instruction_version: number | string;
  preferred_model_id: string | null;
  allowed_model_ids: string[];
  connection_mode: string;
  max_tokens: number | string;
  max_attempts: number | string;
  timeout_seconds: number | string;
  effort: string | null;
  output_format: string;
  output_schema: string;
  is_enabled: boolean;
}

const FIELDS = ['display_name', 'description', 'instruction_id', 'instruction_version', 'preferred_model_id', 'allowed_model_ids', 'connection_mode', 'max_tokens', 'max_attempts', 'timeout', 'effort', 'output_format', 'output_schema', 'is_enabled'];

function valuesOf(agent?: Agent): Values {
  return {
    display_name: agent?.display_name ?? '',
    description: agent?.description ?? '',
    instruction_id: agent?.instruction_id ?? null,
    instruction_version: agent?.instruction_version ?? '',
    preferred_model_id: agent?.preferred_model_id ?? null,
    allowed_model_ids: agent?.allowed_model_ids ?? [],
    connection_mode: agent?.connection_mode ?? 'ANY',
    max_tokens: agent?.max_tokens ?? 16000,
    max_attempts: agent?.max_attempts ?? 3,
    timeout_seconds: agent ? Number.parseInt(agent.timeout, 10) : 120,
    effort: agent?.effort ?? null,
    output_format: agent?.output_format ?? 'TEXT',
    output_schema: agent?.output_schema ? JSON.stringify(agent.output_schema, null, 2) : '',
    is_enabled: agent?.is_enabled ?? true,
  };
}

function bodyOf(v: Values) {
  const num = (x: number | string) => (x === '' ? null : Number(x));
  return {
    display_name: v.display_name,
    description: v.description || null,
    instruction_id: v.instruction_id,
    instruction_version: num(v.instruction_version),
    preferred_model_id: v.preferred_model_id,
    allowed_model_ids: v.allowed_model_ids,
    connection_mode: v.connection_mode as Agent['connection_mode'],
    max_tokens: num(v.max_tokens),
    max_attempts: num(v.max_attempts),
    timeout: `${Number(v.timeout_seconds)}s`,
    effort: (v.effort || null) as Agent['effort'] | null,
    output_format: v.output_format as Agent['output_format'],
    output_schema: v.output_format === 'JSON' && v.output_schema.trim() ? (JSON.parse(v.output_schema) as Record<string, unknown>) : null,
    is_enabled: v.is_enabled,
  };
}

const CONNECTION_MODES = [
  { value: 'ANY', label: 'Any: own keys first, then the platform key' },
  { value: 'BYOK_ONLY', label: 'Own keys only (balance untouched)' },
  { value: 'MANAGED_ONLY', label: 'Platform key only (charged to the balance)' },
];

function RunPanel({ agent, accountId }: { agent: Agent; accountId: string }) {
  const api = useApi();
  const navigate = useNavigate();
  const instruction = useQuery({
    queryKey: ['ai_instructions', accountId, agent.instruction_id],
    enabled: !!agent.instruction_id,
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_instructions/{ai_instruction_id}', { params: { path: { account_id: accountId, ai_instruction_id: agent.instruction_id! } } })),
  });
  const [variables, setVariables] = useState<Record<string, string>>({});
  const [text, setText] = useState('');
  const run = useMutation({
    mutationFn: () =>
      data(
        api.POST('/tenant-api/v1/accounts/{account_id}/ai_executions', {
          params: { path: { account_id: accountId } },
          body: { agent_id: agent.id, input: { variables, ...(text.trim() && { text }) }, source_module: 'admin', source_id: agent.id },
        }),
      ),
    onSuccess: (execution) => void navigate({ to: '/a/$accountId/r/ai_executions/$executionId', params: { accountId, executionId: execution.id } }),
  });
  const names = instruction.data?.variables ?? [];
  return (
    <Card withBorder component="section" aria-labelledby="run-heading">
      <Title order={2} size="h4" id="run-heading" mb="xs">
        Run this agent
      </Title>
      {!agent.is_enabled && <Alert color="yellow">The agent is disabled: enable it to run it.</Alert>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          run.mutate();
        }}
      >
        <Stack>
          {names.map((name) => (
            <TextInput key={name} label={`Variable ${name}`} required value={variables[name] ?? ''} onChange={(e) => setVariables({ ...variables, [name]: e.currentTarget.value })} />
          ))}
          <Textarea label="Text to act on (optional)" autosize minRows={2} value={text} onChange={(e) => setText(e.currentTarget.value)} />
          <ApiErrorAlert error={run.error} title="The run was not started" />
          <Group>
            <Button type="submit" loading={run.isPending} disabled={!agent.is_enabled}>
              Start a run
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

/**
 * Which of the account's connections this agent's runs would use, in the order they are tried:
 * enabled, of the model's provider, allowed by `connection_mode`, lowest priority first.
 */
function AgentConnections({ agent, accountId, provider }: { agent: Agent; accountId: string; provider?: string }) {
  const api = useApi();
  const connections = useQuery({
    queryKey: ['ai_connections', accountId, 'all'],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_connections', { params: { path: { account_id: accountId }, query: { page_size: 100 } } })),
  });
  const usable = (connections.data?.ai_connections ?? [])
    .filter((c) => c.is_enabled && (!provider || c.provider === provider))
    .filter((c) => (agent.connection_mode === 'BYOK_ONLY' ? c.mode === 'BYOK' : agent.connection_mode === 'MANAGED_ONLY' ? c.mode === 'MANAGED' : true))
    .sort((x, y) => x.priority - y.priority);
  return (
    <Card withBorder component="section" aria-labelledby="connections-heading">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="connections-heading">
          Connections its runs use
        </Title>
        <AnchorLink to="/a/$accountId/r/ai_connections" params={{ accountId }} size="sm">
          Manage connections
        </AnchorLink>
      </Group>
      <ApiErrorAlert error={connections.error} />
      {connections.data &&
        (usable.length === 0 ? (
          <Alert color="yellow">No enabled connection fits this agent: its runs would be refused (no usable connection). Add a key or change which connections it may use.</Alert>
        ) : (
          <Stack gap={2}>
            {usable.map((c, i) => (
              <Text key={c.id} size="sm">
                {i + 1}. {c.display_name || c.provider} — {c.mode === 'MANAGED' ? 'platform key, charged to the balance' : `own key …${c.key_hint ?? ''}`} (priority {c.priority}
                {c.mode === 'BYOK' ? `, ${words(c.status).toLowerCase()}` : ''})
              </Text>
            ))}
          </Stack>
        ))}
    </Card>
  );
}

export function AgentPage() {
  const { agentId } = useParams({ strict: false }) as { agentId?: string };
  const creating = !agentId;
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { accountId, canWrite } = useAccount();
  const agent = useQuery({
    queryKey: ['ai_agents', accountId, agentId],
    enabled: !creating,
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_agents/{ai_agent_id}', { params: { path: { account_id: accountId, ai_agent_id: agentId! } } })),
  });
  usePageTitle(creating ? 'New agent' : (agent.data?.display_name ?? 'Agent'));
  const models = useModels();
  const instructions = useQuery({
    queryKey: ['ai_instructions', accountId, 'all'],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_instructions', { params: { path: { account_id: accountId }, query: { page_size: 100, order_by: 'display_name' } } })),
  });
  const form = useForm<Values>({ initialValues: valuesOf() });
  useEffect(() => {
    if (agent.data) {
      form.setValues(valuesOf(agent.data));
      form.resetDirty(valuesOf(agent.data));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [agent.data?.etag]);
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>();
  const [schemaError, setSchemaError] = useState<string>();

  const selectedModel = models.data?.ai_models.find((m) => m.id === form.values.preferred_model_id);
  const modelOptions = useMemo(
    () => (models.data?.ai_models ?? []).map((m) => ({ value: m.id, label: modelLabel(m), disabled: m.state !== 'AVAILABLE' && m.id !== agent.data?.preferred_model_id })),
    [models.data, agent.data?.preferred_model_id],
  );
  const save = useMutation({
    mutationFn: async (v: Values) => {
      const body = bodyOf(v);
      if (creating) return data(api.POST('/tenant-api/v1/accounts/{account_id}/ai_agents', { params: { path: { account_id: accountId } }, body }));
      return data(
        api.PATCH('/tenant-api/v1/accounts/{account_id}/ai_agents/{ai_agent_id}', {
          params: { path: { account_id: accountId, ai_agent_id: agentId! }, query: { update_mask: FIELDS.join(',') }, header: { 'If-Match': agent.data!.etag } },
          body,
        }),
      );
    },
    onSuccess: (a) => {
      queryClient.setQueryData(['ai_agents', accountId, a.id], a);
      void queryClient.invalidateQueries({ queryKey: ['ai_agents', accountId] });
      setSaved(true);
      if (creating) void navigate({ to: '/a/$accountId/r/ai_agents/$agentId', params: { accountId, agentId: a.id } });
    },
    onError: (err) => {
      const fields = [...FIELDS.filter((f) => f !== 'timeout'), 'timeout_seconds'];
      if (!applyFieldErrors(form, err, fields)) setError(err);
      const timeout = (err as { fieldViolations?: Array<{ field: string; description: string }> }).fieldViolations?.find((f) => f.field === 'timeout');
      if (timeout) form.setFieldError('timeout_seconds', timeout.description);
    },
  });
  const submit = form.onSubmit((v) => {
    setSaved(false);
    setError(undefined);
    setSchemaError(undefined);
    if (v.output_format === 'JSON') {
      try {
        JSON.parse(v.output_schema);
      } catch {
        setSchemaError('The answer schema is not valid JSON.');
        return;
      }
    }
    save.mutate(v);
  });

  if (!creating && agent.isPending) return <Loader role="status" aria-label="Loading the agent" />;
  if (!creating && agent.error) return <ApiErrorAlert error={agent.error} title="The agent could not be loaded" />;
  const readOnly = !canWrite;
  return (
    <Stack>
      <AnchorLink to="/a/$accountId/r/ai_agents" params={{ accountId }} size="sm">
        ← All agents
      </AnchorLink>
      <Group justify="space-between">
        <Title order={1}>{creating ? 'New agent' : (agent.data?.display_name ?? 'Agent')}</Title>
        {agent.data && <Text size="sm">Version {agent.data.version}</Text>}
      </Group>
      {agent.data && (
        <Group gap="md">
          <AnchorLink to="/a/$accountId/r/ai_executions" params={{ accountId }} search={{ agent_id: agent.data.id }}>
            Runs of this agent
          </AnchorLink>
          {agent.data.instruction_id && (
            <AnchorLink to="/a/$accountId/r/ai_instructions/$instructionId" params={{ accountId, instructionId: agent.data.instruction_id }}>
              Its instruction and versions
            </AnchorLink>
          )}
        </Group>
      )}
      {agent.data && canWrite && <RunPanel agent={agent.data} accountId={accountId} />}
      {agent.data && <AgentConnections agent={agent.data} accountId={accountId} provider={models.data?.ai_models.find((m) => m.id === agent.data.preferred_model_id)?.provider} />}
      <form onSubmit={submit} noValidate>
        <Card withBorder component="section" aria-labelledby="settings-heading">
          <Title order={2} size="h4" id="settings-heading" mb="sm">
            Settings
          </Title>
          <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0 }}>
            <Stack>
              {saved && !form.isDirty() && <Alert color="green" title="Saved">The agent’s settings were saved as a new version.</Alert>}
              <ApiErrorAlert error={error} title="The agent was not saved" />
              <TextInput label="Name" required {...form.getInputProps('display_name')} maxLength={255} />
              <Textarea label="Description" autosize minRows={2} {...form.getInputProps('description')} maxLength={2000} />
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <Select
                  label="Instruction"
                  required
                  searchable
                  data={(instructions.data?.ai_instructions ?? []).map((i) => ({ value: i.id, label: `${i.display_name} (active version ${i.active_version ?? 1})` }))}
                  nothingFoundMessage="No instruction: create one first"
                  {...form.getInputProps('instruction_id')}
                />
                <NumberInput label="Pin instruction version" description="Empty: the instruction’s active version when a run starts." min={1} allowDecimal={false} {...form.getInputProps('instruction_version')} />
              </SimpleGrid>
              <Select
                label="Model"
                description={selectedModel ? `${selectedModel.provider}, up to ${selectedModel.max_output_tokens ?? '?'} output tokens; capabilities: ${selectedModel.capabilities.map((c) => words(c).toLowerCase()).join(', ')}` : 'Only available models can be chosen.'}
                required
                searchable
                data={modelOptions}
                {...form.getInputProps('preferred_model_id')}
              />
              <MultiSelect label="Other models a run may name" description="Empty: any available model. When set, it must include the model above." data={modelOptions} searchable {...form.getInputProps('allowed_model_ids')} />
              <Select label="Connections runs may use" data={CONNECTION_MODES} allowDeselect={false} {...form.getInputProps('connection_mode')} />
              <SimpleGrid cols={{ base: 1, sm: 3 }}>
                <NumberInput label="Max output tokens" min={1} max={selectedModel?.max_output_tokens ?? 1_000_000} allowDecimal={false} description={selectedModel?.max_output_tokens ? `At most ${selectedModel.max_output_tokens} on this model.` : undefined} {...form.getInputProps('max_tokens')} />
                <NumberInput label="Attempts per run" min={1} max={10} allowDecimal={false} description="1 to 10." {...form.getInputProps('max_attempts')} />
                <NumberInput label="Timeout per attempt (seconds)" min={1} max={600} allowDecimal={false} description="1 to 600." {...form.getInputProps('timeout_seconds')} />
              </SimpleGrid>
              <SimpleGrid cols={{ base: 1, sm: 2 }}>
                <Select
                  label="Effort"
                  data={['LOW', 'MEDIUM', 'HIGH', 'XHIGH', 'MAX'].map((v) => ({ value: v, label: words(v) }))}
                  clearable
                  placeholder="Model default"
                  disabled={!selectedModel?.capabilities.includes('EFFORT')}
                  description={selectedModel && !selectedModel.capabilities.includes('EFFORT') ? 'This model takes no effort setting.' : undefined}
                  {...form.getInputProps('effort')}
                />
                <Select
                  label="Answer format"
                  allowDeselect={false}
                  data={[
                    { value: 'TEXT', label: 'Text' },
                    { value: 'JSON', label: 'JSON (structured)', disabled: !!selectedModel && !selectedModel.capabilities.includes('STRUCTURED_OUTPUT') },
                    { value: 'IMAGE', label: 'Image', disabled: !!selectedModel && !selectedModel.capabilities.includes('IMAGE_GENERATION') },
                  ]}
                  {...form.getInputProps('output_format')}
                />
              </SimpleGrid>
              {form.values.output_format === 'JSON' && <JsonInput label="Answer schema (JSON Schema)" required autosize minRows={4} formatOnBlur {...form.getInputProps('output_schema')} error={schemaError ?? form.errors.output_schema} />}
              <Switch label="Enabled (may run)" {...form.getInputProps('is_enabled', { type: 'checkbox' })} />
              {canWrite && (
                <Group>
                  <Button type="submit" loading={save.isPending}>
                    {creating ? 'Create agent' : 'Save settings'}
                  </Button>
                </Group>
              )}
            </Stack>
          </fieldset>
        </Card>
      </form>
    </Stack>
  );
}
