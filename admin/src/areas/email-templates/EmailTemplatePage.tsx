/**
 * One email template: subject, HTML body and plain-text body (placeholders of the kind listed beside
 * them), saved with If-Match, and a preview rendered by the API (`:render`, the unsaved text filled
 * with each placeholder's sample value). The API has no per-view templates and refuses deletes (every
 * kind must have one), so there is no "reset to default" here.
 */
import { Badge, Button, Card, Code, Grid, Group, Loader, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { data, type Schemas } from '../../lib/api';
import { ApiErrorAlert, applyFieldErrors, fieldErrorsOf } from '../../lib/errors';
import { AnchorLink } from '../../lib/layout/links';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';

type Template = Schemas['EmailTemplate'];
interface Values {
  subject: string;
  body: string;
  text_body: string;
}
const FIELDS = ['subject', 'body', 'text_body'] as const;

export function EmailTemplatePage() {
  const api = useApi();
  const { websiteId, entry } = useCurrentWebsite();
  const { templateId } = useParams({ from: '/signed-in/w/$websiteId/r/email_templates/$templateId' });
  const rights = useRights(entry?.account.id, websiteId);
  const canWrite = !!rights?.canWrite('website.settings');
  const path = { website_id: websiteId, email_template_id: templateId };
  const template = useQuery({ queryKey: ['email_templates', websiteId, templateId], queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/email_templates/{email_template_id}', { params: { path } })) });
  usePageTitle(template.data?.display_name ?? 'Email template');
  return (
    <Stack maw={1200}>
      <AnchorLink to="/w/$websiteId/r/email_templates" params={{ websiteId }} size="sm">
        ← Email templates
      </AnchorLink>
      <Title order={1}>{template.data?.display_name ?? 'Email template'}</Title>
      {template.isPending && <Loader role="status" aria-label="Loading the template" />}
      <ApiErrorAlert error={template.error} title="The template could not be loaded" />
      {template.data && <Editor key={template.data.id} template={template.data} path={path} canWrite={canWrite} />}
    </Stack>
  );
}

function Editor({ template, path, canWrite }: { template: Template; path: { website_id: string; email_template_id: string }; canWrite: boolean }) {
  const api = useApi();
  const qc = useQueryClient();
  const form = useForm<Values>({
    initialValues: { subject: template.subject, body: template.body, text_body: template.text_body ?? '' },
    validate: { subject: (v) => (v.trim() ? null : 'Enter a subject.'), body: (v) => (v.trim() ? null : 'Enter a body.') },
  });
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (v: Values) =>
      data(
        api.PATCH('/tenant-api/v1/websites/{website_id}/email_templates/{email_template_id}', {
          params: { path, query: { update_mask: 'subject,body,text_body' }, header: { 'If-Match': template.etag } },
          body: { subject: v.subject, body: v.body, text_body: v.text_body || null },
        }),
      ),
    onSuccess: async (t, v) => {
      // The editor stays mounted (keyed by id): what was saved is the new clean state.
      form.resetDirty(v);
      setSaved(true);
      qc.setQueryData(['email_templates', path.website_id, path.email_template_id], t);
      await qc.invalidateQueries({ queryKey: ['email_templates', path.website_id], exact: true });
    },
  });
  const preview = useMutation({
    mutationFn: (v: Values) => data(api.POST('/tenant-api/v1/websites/{website_id}/email_templates/{email_template_id}:render', { params: { path }, body: { subject: v.subject, body: v.body, text_body: v.text_body || undefined } })),
  });
  const violations = Object.keys(fieldErrorsOf(save.error));
  const explained = violations.length > 0 && violations.every((f) => (FIELDS as readonly string[]).includes(f));
  useEffect(() => {
    if (save.error) applyFieldErrors(form, save.error, FIELDS);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [save.error]);
  const placeholders = template.placeholders ?? [];

  return (
    <Grid>
      <Grid.Col span={{ base: 12, md: 8 }}>
        <Stack>
          <Text size="sm">{template.description}</Text>
          <form
            onSubmit={form.onSubmit((v) => {
              setSaved(false);
              save.mutate(v);
            })}
            noValidate
          >
            <Stack>
              {!explained && <ApiErrorAlert error={save.error} title="The template was not saved" />}
              {saved && !form.isDirty() && (
                <Text role="status" size="sm">
                  Saved.
                </Text>
              )}
              <TextInput label="Subject" required readOnly={!canWrite} {...form.getInputProps('subject')} />
              <Textarea label="HTML body" required readOnly={!canWrite} autosize minRows={6} maxRows={20} styles={{ input: { fontFamily: 'monospace' } }} {...form.getInputProps('body')} />
              <Textarea label="Plain-text body" description="Empty: the email is sent as HTML only." readOnly={!canWrite} autosize minRows={4} maxRows={16} styles={{ input: { fontFamily: 'monospace' } }} {...form.getInputProps('text_body')} />
              <Group>
                {canWrite && (
                  <Button type="submit" loading={save.isPending}>
                    Save template
                  </Button>
                )}
                <Button variant="default" loading={preview.isPending} onClick={() => preview.mutate(form.getValues())}>
                  Preview
                </Button>
                <Badge color={template.is_customized ? 'blue.9' : 'gray.8'} variant="filled">
                  {template.is_customized ? 'Customised' : 'Platform default'}
                </Badge>
              </Group>
            </Stack>
          </form>
          <ApiErrorAlert error={preview.error} title="The preview could not be rendered" />
          {preview.data && (
            <Card withBorder>
              <Stack gap="xs">
                <Title order={2} size="h4">
                  Preview (sample values)
                </Title>
                <Text size="sm">
                  <strong>Subject:</strong> <span data-testid="preview-subject">{preview.data.subject}</span>
                </Text>
                {/* Sandboxed to an opaque origin (no access to the admin); a srcdoc document inherits the admin's CSP, so
                    the template's inline scripts still do not run. allow-scripts only lets tools (axe) evaluate in the frame. */}
                <iframe title="Rendered HTML body" sandbox="allow-scripts" srcDoc={preview.data.body} style={{ width: '100%', minHeight: 220, border: '1px solid var(--mantine-color-gray-4)', background: 'white' }} />
                {preview.data.text_body && (
                  <Code block style={{ whiteSpace: 'pre-wrap' }}>
                    {preview.data.text_body}
                  </Code>
                )}
              </Stack>
            </Card>
          )}
        </Stack>
      </Grid.Col>
      <Grid.Col span={{ base: 12, md: 4 }}>
        <Stack gap="xs">
          <Title order={2} size="h4">
            Placeholders
          </Title>
          <Text size="sm">Write them with double braces; required ones must appear in the bodies.</Text>
          <Table aria-label="Placeholders" withTableBorder>
            <Table.Tbody>
              {placeholders.map((p) => (
                <Table.Tr key={p.name}>
                  <Table.Td>
                    <Code>{`{{${p.name}}}`}</Code>
                    {p.required && <Text size="xs">required</Text>}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{p.description}</Text>
                    {p.sample_value && <Text size="xs">e.g. {p.sample_value}</Text>}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Stack>
      </Grid.Col>
    </Grid>
  );
}
