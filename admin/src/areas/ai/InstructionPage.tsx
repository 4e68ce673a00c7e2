/**
 * One instruction: its versions (immutable; `versions` collection), a diff between any two (the
 * `diff` library, word by word), a new version from the latest text, and which version runs use
 * (`active_version`, PATCH with `If-Match`).
 */
import { useMemo, useState } from 'react';
import { Alert, Badge, Button, Card, Group, Loader, Select, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { diffWordsWithSpace } from 'diff';
import { data, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { dateTime, useAccount } from './common';

type Version = Schemas['AiInstructionVersion'] & { version: number };

function VersionDiff({ older, newer }: { older: Version; newer: Version }) {
  const parts = useMemo(() => diffWordsWithSpace(older.content, newer.content), [older.content, newer.content]);
  const changed = parts.some((p) => p.added || p.removed);
  return (
    <Stack gap="xs">
      <Text size="sm">
        Version {older.version} → version {newer.version}: <span style={{ background: '#d3f9d8', padding: '0 2px' }}>added text</span> and{' '}
        <span style={{ background: '#ffe3e3', textDecoration: 'line-through', padding: '0 2px' }}>removed text</span>.
      </Text>
      {!changed && <Alert color="gray">The two versions have the same text.</Alert>}
      <pre aria-label={`Changes from version ${older.version} to version ${newer.version}`} style={{ whiteSpace: 'pre-wrap', fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 14, padding: 12, border: '1px solid var(--mantine-color-gray-4)', borderRadius: 4, margin: 0 }}>
        {parts.map((p, i) =>
          p.added ? (
            <ins key={i} style={{ background: '#d3f9d8', textDecoration: 'none' }}>
              {p.value}
            </ins>
          ) : p.removed ? (
            <del key={i} style={{ background: '#ffe3e3' }}>
              {p.value}
            </del>
          ) : (
            <span key={i}>{p.value}</span>
          ),
        )}
      </pre>
    </Stack>
  );
}

export function InstructionPage() {
  const { instructionId } = useParams({ strict: false }) as { instructionId: string };
  const api = useApi();
  const queryClient = useQueryClient();
  const { accountId, canWrite } = useAccount();
  const path = { account_id: accountId, ai_instruction_id: instructionId };
  const instruction = useQuery({ queryKey: ['ai_instructions', accountId, instructionId], queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_instructions/{ai_instruction_id}', { params: { path } })) });
  const versions = useQuery({
    queryKey: ['ai_instructions', accountId, instructionId, 'versions'],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_instructions/{ai_instruction_id}/versions', { params: { path, query: { page_size: 100 } } })),
  });
  usePageTitle(instruction.data?.display_name ?? 'Instruction');
  const list = useMemo(() => [...((versions.data?.versions ?? []) as Version[])].sort((a, b) => b.version - a.version), [versions.data]);
  const [from, setFrom] = useState<string | null>(null);
  const [to, setTo] = useState<string | null>(null);
  const newer = list.find((v) => String(v.version) === to) ?? list[0];
  const older = list.find((v) => String(v.version) === from) ?? list.find((v) => newer && v.version < newer.version) ?? newer;
  const [content, setContent] = useState<string>();
  const [notes, setNotes] = useState('');
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['ai_instructions', accountId, instructionId] });
  const addVersion = useMutation({
    mutationFn: () =>
      data(api.POST('/tenant-api/v1/accounts/{account_id}/ai_instructions/{ai_instruction_id}/versions', { params: { path }, body: { content: content ?? list[0]?.content ?? '', ...(notes && { notes }) } })),
    onSuccess: () => {
      setContent(undefined);
      setNotes('');
      setFrom(null);
      setTo(null);
      refresh();
    },
  });
  const activate = useMutation({
    mutationFn: (version: number) =>
      data(api.PATCH('/tenant-api/v1/accounts/{account_id}/ai_instructions/{ai_instruction_id}', { params: { path, header: { 'If-Match': instruction.data!.etag } }, body: { active_version: version } })),
    onSuccess: refresh,
  });
  if (instruction.isPending) return <Loader role="status" aria-label="Loading the instruction" />;
  if (instruction.error) return <ApiErrorAlert error={instruction.error} title="The instruction could not be loaded" />;
  const i = instruction.data;
  const options = list.map((v) => ({ value: String(v.version), label: `Version ${v.version}${v.version === i.active_version ? ' (active)' : ''}` }));
  return (
    <Stack>
      <AnchorLink to="/a/$accountId/r/ai_instructions" params={{ accountId }} size="sm">
        ← All instructions
      </AnchorLink>
      <Title order={1}>{i.display_name}</Title>
      {i.description && <Text>{i.description}</Text>}
      <Text size="sm">
        Variables: {i.variables.length ? i.variables.map((v) => `{{${v}}}`).join(', ') : 'none'} · runs use version {i.active_version} unless their agent pins one.
      </Text>
      <ApiErrorAlert error={versions.error ?? activate.error} />
      <Card withBorder component="section" aria-labelledby="versions-heading">
        <Title order={2} size="h4" id="versions-heading" mb="xs">
          Versions
        </Title>
        {versions.isPending && <Loader size="sm" role="status" aria-label="Loading versions" />}
        <Table.ScrollContainer minWidth={560}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Version</Table.Th>
                <Table.Th scope="col">Notes</Table.Th>
                <Table.Th scope="col">Created</Table.Th>
                <Table.Th scope="col">Runs use it</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((v) => (
                <Table.Tr key={v.version}>
                  <Table.Td>{v.version}</Table.Td>
                  <Table.Td>{v.notes || '—'}</Table.Td>
                  <Table.Td>{dateTime(v.create_time)}</Table.Td>
                  <Table.Td>
                    {v.version === i.active_version ? (
                      <Badge variant="dot" color="green.9">
                        Active
                      </Badge>
                    ) : canWrite ? (
                      <Button size="compact-xs" variant="default" onClick={() => activate.mutate(v.version)} loading={activate.isPending && activate.variables === v.version}>
                        Make version {v.version} active
                      </Button>
                    ) : (
                      '—'
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      </Card>
      {newer && older && (
        <Card withBorder component="section" aria-labelledby="diff-heading">
          <Title order={2} size="h4" id="diff-heading" mb="xs">
            Compare versions
          </Title>
          <Group mb="sm">
            <Select label="From" data={options} value={String(older.version)} onChange={setFrom} allowDeselect={false} w={180} />
            <Select label="To" data={options} value={String(newer.version)} onChange={setTo} allowDeselect={false} w={180} />
          </Group>
          <VersionDiff older={older} newer={newer} />
        </Card>
      )}
      {canWrite && list[0] && (
        <Card withBorder component="section" aria-labelledby="new-version-heading">
          <Title order={2} size="h4" id="new-version-heading" mb="xs">
            New version
          </Title>
          <Stack>
            <Textarea label="Instruction text" autosize minRows={5} value={content ?? list[0].content} onChange={(e) => setContent(e.currentTarget.value)} description={`Starts from version ${list[0].version}. It becomes version ${list[0].version + 1}; runs keep using the active version until you make it active.`} />
            <TextInput label="Notes" description="Why this version exists." value={notes} onChange={(e) => setNotes(e.currentTarget.value)} />
            <ApiErrorAlert error={addVersion.error} title="The version was not saved" />
            <Group>
              <Button onClick={() => addVersion.mutate()} loading={addVersion.isPending} disabled={content === undefined || content === list[0].content}>
                Save as version {list[0].version + 1}
              </Button>
            </Group>
          </Stack>
        </Card>
      )}
    </Stack>
  );
}
