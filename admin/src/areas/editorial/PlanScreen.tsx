/**
 * The editorial plan's rules as a form: the weekly slots and their time zone, how far ahead the
 * calendar is kept filled, manual or automatic, the drafting and review agents, what new drafts get
 * (author, categories, views) and what publishing requires. Saved with `If-Match`.
 */
import { useEffect, useState } from 'react';
import { ActionIcon, Alert, Button, Card, Group, Loader, MultiSelect, NumberInput, SegmentedControl, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '@siteplatform/sdk';
import { data, type Schemas } from '../../lib/api';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { listAll } from '../../lib/list-all';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { EditorialTabs } from './EditorialTabs';

type Plan = Schemas['EditorialPlan'];
type Weekday = NonNullable<Plan['slots']>[number]['weekday'];
const WEEKDAYS: Weekday[] = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const dayLabel = (d: string) => d.charAt(0) + d.slice(1).toLowerCase();

interface PlanForm {
  slots: Array<{ weekday: Weekday; time: string }>;
  time_zone: string;
  horizon_days: number;
  automation: 'MANUAL' | 'AUTOMATIC';
  materialize_lead_hours: number;
  drafting_agent_id: string | null;
  review_agent_id: string | null;
  default_author_id: string | null;
  default_category_ids: string[];
  default_visible_view_ids: string[];
  require_passing_verdict: boolean;
  allow_person_approval: boolean;
}

const toForm = (p: Plan): PlanForm => ({
  slots: (p.slots ?? []).map((s) => ({ weekday: s.weekday, time: s.time })),
  time_zone: p.time_zone ?? '',
  horizon_days: p.horizon_days,
  automation: (p.automation ?? 'MANUAL') as PlanForm['automation'],
  materialize_lead_hours: p.materialize_lead_hours,
  drafting_agent_id: p.drafting_agent_id ?? null,
  review_agent_id: p.review_agent_id ?? null,
  default_author_id: p.default_author_id ?? null,
  default_category_ids: p.default_category_ids ?? [],
  default_visible_view_ids: p.default_visible_view_ids ?? [],
  require_passing_verdict: p.require_passing_verdict,
  allow_person_approval: p.allow_person_approval,
});

export function PlanScreen() {
  usePageTitle('Editorial plan');
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId, entry } = useCurrentWebsite();
  const accountId = entry?.account.id;
  const rights = useRights(accountId, websiteId);
  const canWrite = !!rights?.canWrite('website.editorial');
  const key = ['editorial_plan', websiteId];
  const plan = useQuery({ queryKey: key, queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/editorial_plan', { params: { path: { website_id: websiteId } } })) });
  const agents = useQuery({
    queryKey: ['ai_agents', accountId],
    enabled: !!accountId && !!rights?.canRead('ai'),
    queryFn: () => listAll(api, '/tenant-api/v1/accounts/{account_id}/ai_agents', { path: { account_id: accountId! }, query: { page_size: 100 } }),
  });
  const authors = useQuery({ queryKey: ['blog_authors', websiteId, 'all'], queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/blog_authors', { path: { website_id: websiteId }, query: { page_size: 100 } }) });
  const categories = useQuery({ queryKey: ['blog_categories', websiteId], queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/blog_categories', { path: { website_id: websiteId }, query: { page_size: 100 } }) });
  const views = useQuery({ queryKey: ['views', websiteId], queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/views', { path: { website_id: websiteId }, query: { page_size: 100 } }) });
  const form = useForm<PlanForm>({ initialValues: toForm({ slots: [], horizon_days: 14, materialize_lead_hours: 24, require_passing_verdict: false, allow_person_approval: true } as unknown as Plan) });
  const [loaded, setLoaded] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  useEffect(() => {
    if (plan.data && plan.data.etag !== loaded) {
      form.setValues(toForm(plan.data));
      form.resetDirty(toForm(plan.data));
      setLoaded(plan.data.etag);
    }
  }, [plan.data]); // eslint-disable-line react-hooks/exhaustive-deps

  const submit = form.onSubmit(async (v) => {
    if (!plan.data) return;
    setError(undefined);
    try {
      const saved = await data(
        api.PATCH('/tenant-api/v1/websites/{website_id}/editorial_plan', {
          params: { path: { website_id: websiteId }, header: { 'If-Match': plan.data.etag } },
          body: { ...v, time_zone: v.time_zone.trim() || null },
        }),
      );
      qc.setQueryData(key, saved);
      setStatus('Plan saved.');
    } catch (err) {
      if (!applyFieldErrors(form, err, Object.keys(v))) setError(err);
    }
  });
  const agentOptions = (agents.data ?? []).map((a) => ({ value: a.id, label: a.display_name }));
  const p = plan.data;

  return (
    <Stack maw={900}>
      <Title order={1}>Editorial plan</Title>
      <EditorialTabs current="plan" />
      <Text role="status" aria-live="polite" size="sm">
        {status}
      </Text>
      <ApiErrorAlert error={plan.error} title="The plan could not be loaded" />
      {plan.isPending && <Loader role="status" aria-label="Loading the plan" />}
      {p?.automation === 'AUTOMATIC' && p.automation_state === 'STOPPED' && (
        <Alert color="red" title="The automation stopped">
          {p.automation_stop_reason ?? 'See the reason in the plan.'} Save the plan with Automatic again to restart it.
        </Alert>
      )}
      {p && (
        <form onSubmit={submit} noValidate>
          <Stack>
            {ApiError.is(error) && error.status === 'ABORTED' ? (
              <Alert color="orange" role="alert" title="Someone else saved the plan meanwhile">
                Your values are still in the form.{' '}
                <Button size="compact-xs" variant="default" onClick={() => (setError(undefined), setLoaded(undefined), void plan.refetch())}>
                  Load their version
                </Button>
              </Alert>
            ) : (
              <ApiErrorAlert error={error} title="The plan was not saved" />
            )}
            <Card withBorder>
              <Title order={2} size="h4" mb="xs">
                When posts go out
              </Title>
              <Stack gap="xs">
                {form.values.slots.length === 0 && <Text size="sm">No slot yet: the calendar stays empty until the week has at least one.</Text>}
                {form.values.slots.map((slot, i) => (
                  <Group key={i} align="flex-end">
                    <Select
                      label={`Slot ${i + 1}: day`}
                      data={WEEKDAYS.map((d) => ({ value: d, label: dayLabel(d) }))}
                      allowDeselect={false}
                      disabled={!canWrite}
                      {...form.getInputProps(`slots.${i}.weekday`)}
                    />
                    <TextInput label={`Slot ${i + 1}: time`} type="time" disabled={!canWrite} {...form.getInputProps(`slots.${i}.time`)} />
                    {canWrite && (
                      <ActionIcon variant="subtle" color="red" size="lg" aria-label={`Remove slot ${i + 1}`} onClick={() => form.removeListItem('slots', i)}>
                        <span aria-hidden="true">✕</span>
                      </ActionIcon>
                    )}
                  </Group>
                ))}
                {canWrite && (
                  <Group>
                    <Button variant="default" size="xs" onClick={() => form.insertListItem('slots', { weekday: 'MONDAY', time: '09:00' })}>
                      Add a slot
                    </Button>
                  </Group>
                )}
                <TextInput label="Time zone" description="IANA name such as Europe/Berlin; empty: the website’s time zone." disabled={!canWrite} {...form.getInputProps('time_zone')} />
                <NumberInput label="Keep the calendar filled this many days ahead" min={1} max={365} disabled={!canWrite} {...form.getInputProps('horizon_days')} />
              </Stack>
            </Card>
            <Card withBorder>
              <Title order={2} size="h4" mb="xs">
                Who writes and reviews
              </Title>
              <Stack gap="xs">
                <SegmentedControl
                  aria-label="Automation"
                  disabled={!canWrite}
                  data={[
                    { value: 'MANUAL', label: 'Manual: the calendar moves when you act' },
                    { value: 'AUTOMATIC', label: 'Automatic' },
                  ]}
                  {...form.getInputProps('automation')}
                />
                {form.values.automation === 'AUTOMATIC' && (
                  <NumberInput label="Draft this many hours before the slot" min={1} max={720} disabled={!canWrite} {...form.getInputProps('materialize_lead_hours')} />
                )}
                <Select
                  label="Drafting agent"
                  description="An AI agent of the account (copy the system agent editorial-draft-post). None: drafting makes an empty draft from the backlog item."
                  placeholder="None"
                  clearable
                  clearButtonProps={{ 'aria-label': 'Clear' }}
                  disabled={!canWrite}
                  data={agentOptions}
                  {...form.getInputProps('drafting_agent_id')}
                />
                <Select
                  label="Review agent"
                  description="When set, every finished draft is reviewed (copy editorial-review-draft)."
                  placeholder="None"
                  clearable
                  clearButtonProps={{ 'aria-label': 'Clear' }}
                  disabled={!canWrite}
                  data={agentOptions}
                  {...form.getInputProps('review_agent_id')}
                />
              </Stack>
            </Card>
            <Card withBorder>
              <Title order={2} size="h4" mb="xs">
                New drafts and publishing
              </Title>
              <Stack gap="xs">
                <Select label="Author of new drafts" placeholder="None" clearable clearButtonProps={{ 'aria-label': 'Clear' }} disabled={!canWrite} data={(authors.data ?? []).map((a) => ({ value: a.id, label: a.display_name }))} {...form.getInputProps('default_author_id')} />
                <MultiSelect label="Categories of new drafts" disabled={!canWrite} data={(categories.data ?? []).map((c) => ({ value: c.id, label: c.display_name }))} {...form.getInputProps('default_category_ids')} />
                <MultiSelect label="Views of new drafts" description="None: every view." disabled={!canWrite} data={(views.data ?? []).map((v) => ({ value: v.id, label: `${v.display_name} (${v.locale})` }))} {...form.getInputProps('default_visible_view_ids')} />
                <Switch label="Publishing needs a passing review verdict" disabled={!canWrite} {...form.getInputProps('require_passing_verdict', { type: 'checkbox' })} />
                <Switch label="A person’s approval may stand in for the verdict" disabled={!canWrite} {...form.getInputProps('allow_person_approval', { type: 'checkbox' })} />
              </Stack>
            </Card>
            {canWrite && (
              <Group>
                <Button type="submit" loading={form.submitting} disabled={!form.isDirty()}>
                  Save plan
                </Button>
              </Group>
            )}
          </Stack>
        </form>
      )}
    </Stack>
  );
}
