/**
 * The account's projects, each with its websites: create a project, rename one (If-Match), delete an
 * empty one after typing its name (the API refuses a project with websites unless forced; we never
 * force: deleting websites is their own decision), and create a website in a project, following the
 * provisioning Operation until the new website can be opened.
 */
import { useState } from 'react';
import { Button, Card, Group, Modal, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { data, type Schemas } from '../../lib/api';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { AnchorLink } from '../../lib/layout/links';
import { usePageTitle } from '../../lib/layout/title';
import { ListState } from '../../lib/list-ui';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { MY_WEBSITES_KEY } from '../../lib/websites';
import { OperationProgress } from '../../generic/OperationProgress';

type Project = Schemas['Project'];
type Website = Schemas['Website'];

export function ProjectsPage() {
  usePageTitle('Projects');
  const api = useApi();
  const qc = useQueryClient();
  const { accountId } = useParams({ from: '/signed-in/a/$accountId' });
  const rights = useRights(accountId);
  const canWrite = !!rights?.canWrite('account.projects');
  const key = ['projects', accountId];
  // One page of 100: accounts hold a handful of projects.
  const list = useQuery({ queryKey: key, queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/projects', { params: { path: { account_id: accountId }, query: { page_size: 100 } } })) });
  const [creating, setCreating] = useState(false);
  const form = useForm({ initialValues: { display_name: '' }, validate: { display_name: (v) => (v.trim() ? null : 'Enter a name.') } });
  const create = useMutation({
    mutationFn: (v: { display_name: string }) => data(api.POST('/tenant-api/v1/accounts/{account_id}/projects', { params: { path: { account_id: accountId } }, body: { display_name: v.display_name.trim() } })),
    onSuccess: async () => {
      setCreating(false);
      form.reset();
      await qc.invalidateQueries({ queryKey: key });
    },
    onError: (e) => applyFieldErrors(form, e, ['display_name']),
  });
  const projects = list.data?.projects ?? [];
  return (
    <Stack maw={1100}>
      <Group justify="space-between">
        <Title order={1}>Projects</Title>
        {canWrite && !creating && (
          <Button
            onClick={() => {
              create.reset();
              setCreating(true);
            }}
          >
            New project
          </Button>
        )}
      </Group>
      <Text size="sm">Projects group the account’s websites.</Text>
      {creating && (
        <Card withBorder>
          <form onSubmit={form.onSubmit((v) => create.mutate(v))} noValidate>
            <Stack>
              <Title order={2} size="h4">
                New project
              </Title>
              <ApiErrorAlert error={create.error} title="The project was not created" />
              <TextInput label="Project name" required {...form.getInputProps('display_name')} />
              <Group>
                <Button type="submit" loading={create.isPending}>
                  Create project
                </Button>
                <Button variant="default" onClick={() => setCreating(false)}>
                  Cancel
                </Button>
              </Group>
            </Stack>
          </form>
        </Card>
      )}
      <ListState query={list} isEmpty={projects.length === 0} what="projects" empty={canWrite ? 'Create one to start a website.' : 'This account has no projects yet.'} />
      {projects.map((p) => (
        <ProjectCard key={p.id} project={p} accountId={accountId} canWrite={canWrite} />
      ))}
    </Stack>
  );
}

function ProjectCard({ project, accountId, canWrite }: { project: Project; accountId: string; canWrite: boolean }) {
  const api = useApi();
  const qc = useQueryClient();
  const path = { project_id: project.id };
  const sitesKey = ['projects', accountId, project.id, 'websites'];
  const sites = useQuery({ queryKey: sitesKey, queryFn: () => data(api.GET('/tenant-api/v1/projects/{project_id}/websites', { params: { path, query: { page_size: 100 } } })) });
  const [mode, setMode] = useState<'rename' | 'website' | 'delete'>();
  const [name, setName] = useState(project.display_name);
  const [typed, setTyped] = useState('');
  const [created, setCreated] = useState<Website>();
  const [siteName, setSiteName] = useState('');
  const refreshProjects = () => qc.invalidateQueries({ queryKey: ['projects', accountId], exact: true });
  const rename = useMutation({
    mutationFn: () => data(api.PATCH('/tenant-api/v1/projects/{project_id}', { params: { path, query: { update_mask: 'display_name' }, header: { 'If-Match': project.etag } }, body: { display_name: name.trim() } })),
    onSuccess: async () => {
      setMode(undefined);
      await refreshProjects();
      await qc.invalidateQueries({ queryKey: MY_WEBSITES_KEY });
    },
  });
  const remove = useMutation({
    mutationFn: () => api.DELETE('/tenant-api/v1/projects/{project_id}', { params: { path, header: { 'If-Match': project.etag } } }),
    onSuccess: async () => {
      setMode(undefined);
      await refreshProjects();
    },
  });
  const createSite = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/projects/{project_id}/websites', { params: { path }, body: { display_name: siteName.trim() } })),
    onSuccess: async (w) => {
      setCreated(w);
      setSiteName('');
      await qc.invalidateQueries({ queryKey: sitesKey });
    },
  });
  const websites = sites.data?.websites ?? [];
  const open = (m: typeof mode) => {
    rename.reset();
    remove.reset();
    createSite.reset();
    setCreated(undefined);
    setName(project.display_name);
    setTyped('');
    setMode(m);
  };

  return (
    <Card withBorder component="section" aria-labelledby={`project-${project.id}`}>
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h3" id={`project-${project.id}`}>
            {project.display_name}
          </Title>
          {canWrite && (
            <Group gap="xs">
              <Button size="xs" variant="default" onClick={() => open('website')}>
                New website
              </Button>
              <Button size="xs" variant="default" onClick={() => open('rename')}>
                Rename
              </Button>
              <Button size="xs" variant="outline" color="red" onClick={() => open('delete')}>
                Delete
              </Button>
            </Group>
          )}
        </Group>
        {project.description && <Text size="sm">{project.description}</Text>}
        {mode === 'rename' && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (name.trim()) rename.mutate();
            }}
          >
            <Stack>
              <ApiErrorAlert error={rename.error} title="The project was not renamed" />
              <TextInput label="New project name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
              <Group>
                <Button type="submit" loading={rename.isPending} disabled={!name.trim()}>
                  Save name
                </Button>
                <Button variant="default" onClick={() => setMode(undefined)}>
                  Cancel
                </Button>
              </Group>
            </Stack>
          </form>
        )}
        {mode === 'website' && !created && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (siteName.trim()) createSite.mutate();
            }}
          >
            <Stack>
              <ApiErrorAlert error={createSite.error} title="The website was not created" />
              <TextInput label="Website name" required value={siteName} onChange={(e) => setSiteName(e.currentTarget.value)} />
              <Group>
                <Button type="submit" loading={createSite.isPending} disabled={!siteName.trim()}>
                  Create website
                </Button>
                <Button variant="default" onClick={() => setMode(undefined)}>
                  Cancel
                </Button>
              </Group>
            </Stack>
          </form>
        )}
        {created && <Provisioning website={created} onDone={() => void Promise.all([qc.invalidateQueries({ queryKey: sitesKey }), qc.invalidateQueries({ queryKey: MY_WEBSITES_KEY })])} />}
        {sites.isPending && <Text size="sm">Loading the websites…</Text>}
        <ApiErrorAlert error={sites.error} title="The websites could not be loaded" />
        {sites.data && websites.length === 0 && <Text size="sm">No websites yet.</Text>}
        {websites.length > 0 && (
          <Table aria-label={`Websites of ${project.display_name}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Website</Table.Th>
                <Table.Th>Address</Table.Th>
                <Table.Th>Status</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {websites.map((w) => (
                <Table.Tr key={w.id}>
                  <Table.Td>
                    <AnchorLink to="/w/$websiteId" params={{ websiteId: w.id }}>
                      {w.display_name}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{w.website_url ?? '—'}</Table.Td>
                  <Table.Td>{statusLabel(w.provisioning_status)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
      <Modal opened={mode === 'delete'} onClose={() => setMode(undefined)} title={`Delete the project ${project.display_name}?`} closeButtonProps={{ 'aria-label': 'Close' }} transitionProps={{ duration: 0 }}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (typed.trim() === project.display_name) remove.mutate();
          }}
        >
          <Stack>
            <Text size="sm">{websites.length > 0 ? `It still has ${websites.length} website${websites.length === 1 ? '' : 's'}: only an empty project can be deleted. Delete its websites first.` : 'The project has no websites; deleting it cannot be undone.'}</Text>
            <ApiErrorAlert error={remove.error} title="The project was not deleted" />
            <TextInput label={`Type the project’s name (${project.display_name}) to confirm`} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" />
            <Group>
              <Button type="submit" color="red" loading={remove.isPending} disabled={typed.trim() !== project.display_name}>
                Delete project
              </Button>
              <Button variant="default" onClick={() => setMode(undefined)}>
                Cancel
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Card>
  );
}

const statusLabel = (s: Website['provisioning_status']) => (s === 'PENDING' ? 'Being set up' : s === 'FAILED' ? 'Setup failed' : 'Ready');

/** The new website's provisioning, then a link to it. */
function Provisioning({ website, onDone }: { website: Website; onDone: () => void }) {
  const [done, setDone] = useState(!website.operation || website.provisioning_status === 'ACTIVE');
  const [failed, setFailed] = useState(website.provisioning_status === 'FAILED');
  return (
    <Card withBorder bg="gray.0">
      <Stack gap="xs">
        <Text fw={600}>Creating {website.display_name}</Text>
        {website.operation && (
          <OperationProgress
            operation={{ name: website.operation, done: false }}
            onDone={(op) => {
              setDone(true);
              setFailed(!!op.error);
              onDone();
            }}
          />
        )}
        {done && !failed && (
          <AnchorLink to="/w/$websiteId" params={{ websiteId: website.id }}>
            Open {website.display_name}
          </AnchorLink>
        )}
      </Stack>
    </Card>
  );
}
