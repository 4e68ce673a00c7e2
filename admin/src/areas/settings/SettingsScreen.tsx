/**
 * Every website setting the registry describes (`setting_descriptors`), grouped by the sections of
 * its dotted path, each with the control its type needs; where a view holds its own value, that
 * override is shown as such. Save sends every change in one `settings:batch_update` (all land or
 * none), each with the etag it was edited from.
 */
import { useMemo, useState } from 'react';
import { Alert, Badge, Button, Card, Code, Group, Loader, NumberInput, Select, Stack, Switch, Tabs, TagsInput, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '@siteplatform/sdk';
import { data, type Schemas } from '../../lib/api';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { listAll } from '../../lib/list-all';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { groupSettings, humanize, sameValue, type SettingValue } from './settings-model';

type Descriptor = Schemas['SettingDescriptor'];
type Setting = Schemas['Setting'];
type View = Schemas['View'];

export function SettingsScreen() {
  usePageTitle('Settings');
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const canWrite = !!rights?.canWrite('website.settings');
  const descriptors = useQuery({ queryKey: ['setting_descriptors'], queryFn: () => listAll(api, '/tenant-api/v1/setting_descriptors', { query: { page_size: 100 } }), staleTime: 600_000 });
  const key = ['settings', websiteId];
  const settings = useQuery({ queryKey: key, queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/settings', { path: { website_id: websiteId }, query: { page_size: 100 } }) });
  const overrides = useQuery({
    queryKey: ['settings', websiteId, 'view-overrides'],
    queryFn: async () => {
      const views = await listAll(api, '/tenant-api/v1/websites/{website_id}/views', { path: { website_id: websiteId }, query: { page_size: 100 } });
      const out: Array<{ view: View; setting: Schemas['ViewSetting'] }> = [];
      for (const view of views.filter((v) => !v.is_default)) {
        const list = await listAll(api, '/tenant-api/v1/websites/{website_id}/views/{view_id}/settings', { path: { website_id: websiteId, view_id: view.id }, query: { page_size: 100 } });
        for (const setting of list) if (setting.source === 'VIEW') out.push({ view, setting });
      }
      return out;
    },
  });
  const [edits, setEdits] = useState<Record<string, SettingValue>>({});
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');

  const byPath = useMemo(() => new Map((settings.data ?? []).map((s) => [s.path ?? s.id, s])), [settings.data]);
  const groups = useMemo(() => groupSettings(descriptors.data ?? []), [descriptors.data]);
  const currentOf = (d: Descriptor): SettingValue => (byPath.get(d.path ?? d.id)?.value ?? d.default_value ?? null) as SettingValue;
  const valueOf = (d: Descriptor): SettingValue => (d.path! in edits ? edits[d.path!] : currentOf(d));
  const changed = (descriptors.data ?? []).filter((d) => d.path! in edits && !sameValue(edits[d.path!], currentOf(d)));

  // Field violations of the batch: `requests[i].value` → the i-th changed path.
  const fieldErrors: Record<string, string> = {};
  for (const [field, message] of Object.entries(fieldErrorsOf(error))) {
    const m = /^requests\[(\d+)\]/.exec(field);
    if (m && changed[Number(m[1])]) fieldErrors[changed[Number(m[1])].path!] = message;
  }

  const save = async () => {
    setSaving(true);
    setError(undefined);
    try {
      const requests = changed.map((d) => {
        const s = byPath.get(d.path!);
        return { path: d.path!, value: edits[d.path!], ...(s?.etag ? { etag: s.etag } : {}) };
      });
      await data(api.POST('/tenant-api/v1/websites/{website_id}/settings:batch_update', { params: { path: { website_id: websiteId } }, body: { requests } }));
      await qc.invalidateQueries({ queryKey: key });
      setEdits({});
      setStatus(`${requests.length} ${requests.length === 1 ? 'setting' : 'settings'} saved.`);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  const loading = descriptors.isPending || settings.isPending;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Settings</Title>
        {canWrite && (
          <Group>
            <Button variant="default" disabled={changed.length === 0 || saving} onClick={() => (setEdits({}), setError(undefined))}>
              Discard changes
            </Button>
            <Button onClick={save} loading={saving} disabled={changed.length === 0}>
              {changed.length > 0 ? `Save ${changed.length} ${changed.length === 1 ? 'change' : 'changes'}` : 'Save'}
            </Button>
          </Group>
        )}
      </Group>
      <Text role="status" aria-live="polite" size="sm">
        {status}
      </Text>
      <ApiErrorAlert error={descriptors.error ?? settings.error} title="The settings could not be loaded" />
      {ApiError.is(error) && error.status === 'ABORTED' ? (
        <Alert color="orange" role="alert" title="Someone else changed a setting meanwhile">
          <Text size="sm">Nothing was saved (the batch is all or nothing). Your changes are still here; reload the current values and save again.</Text>
          <Button mt="xs" size="xs" variant="default" onClick={() => (setError(undefined), void settings.refetch())}>
            Reload the current values
          </Button>
        </Alert>
      ) : (
        <ApiErrorAlert error={error} title="Nothing was saved" />
      )}
      {loading && <Loader role="status" aria-label="Loading the settings" />}
      {!loading && groups.length === 0 && <Alert title="No settings">The platform describes no setting.</Alert>}
      {!loading && groups.length > 0 && (
        <Tabs defaultValue={groups[0].section} keepMounted={false}>
          <Tabs.List>
            {groups.map((g) => (
              <Tabs.Tab key={g.section} value={g.section}>
                {humanize(g.section)}
                {g.subsections.some((s) => s.descriptors.some((d) => changed.includes(d))) ? ' •' : ''}
              </Tabs.Tab>
            ))}
          </Tabs.List>
          {groups.map((g) => (
            <Tabs.Panel key={g.section} value={g.section} pt="md">
              <Stack>
                {g.subsections.map((sub) => (
                  <Card withBorder key={sub.name}>
                    <Title order={2} size="h4" mb="sm">
                      {humanize(sub.name)}
                    </Title>
                    <Stack gap="md">
                      {sub.descriptors.map((d) => (
                        <SettingControl
                          key={d.path}
                          descriptor={d}
                          setting={byPath.get(d.path!)}
                          value={valueOf(d)}
                          edited={changed.includes(d)}
                          disabled={!canWrite}
                          error={fieldErrors[d.path!]}
                          overrides={(overrides.data ?? []).filter((o) => o.setting.path === d.path)}
                          onChange={(v) => setEdits((e) => ({ ...e, [d.path!]: v }))}
                        />
                      ))}
                    </Stack>
                  </Card>
                ))}
              </Stack>
            </Tabs.Panel>
          ))}
        </Tabs>
      )}
    </Stack>
  );
}

function SettingControl(props: {
  descriptor: Descriptor;
  setting?: Setting;
  value: SettingValue;
  edited: boolean;
  disabled: boolean;
  error?: string;
  overrides: Array<{ view: View; setting: Schemas['ViewSetting'] }>;
  onChange: (v: SettingValue) => void;
}) {
  const { descriptor: d, value, onChange, disabled, error, setting } = props;
  const label = humanize(d.path!.split('.').slice(2).join(' ') || d.path!.split('.').pop()!);
  const description = (
    <>
      {d.description} <Code>{d.path}</Code>
    </>
  );
  const source = props.edited ? 'Changed, not saved' : setting?.source === 'WEBSITE' ? 'Set for this website' : 'Default';
  const common = { label, description, disabled, error };
  let control;
  switch (d.type) {
    case 'BOOLEAN':
      control = <Switch {...common} checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />;
      break;
    case 'INTEGER':
      control = (
        <NumberInput
          {...common}
          value={typeof value === 'number' ? value : ''}
          min={d.min_value}
          max={d.max_value}
          allowDecimal={false}
          onChange={(v) => onChange(v === '' ? null : Number(v))}
        />
      );
      break;
    case 'ENUM':
      control = <Select {...common} data={(d.allowed_values ?? []).map((v) => ({ value: v, label: v === '' ? '(none)' : v }))} value={typeof value === 'string' ? value : null} onChange={(v) => onChange(v)} />;
      break;
    case 'STRING_LIST':
      control = <TagsInput {...common} value={Array.isArray(value) ? value : []} maxTags={d.max_items} onChange={(v) => onChange(v)} />;
      break;
    default:
      control = (
        <TextInput
          {...common}
          type={d.format === 'EMAIL' ? 'email' : 'text'}
          value={typeof value === 'string' ? value : ''}
          maxLength={d.max_length}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
  }
  return (
    <Stack gap={4}>
      {control}
      <Group gap="xs">
        <Badge size="sm" variant="filled" color={props.edited ? '#a63c06' : setting?.source === 'WEBSITE' ? 'blue.9' : 'gray.8'}>
          {source}
        </Badge>
        {!disabled && setting?.source === 'WEBSITE' && !props.edited && (
          <Button size="compact-xs" variant="subtle" onClick={() => onChange(null)} aria-label={`Reset to default: ${label}`}>
            Reset to default
          </Button>
        )}
        {d.view_overridable && props.overrides.length === 0 && <Text size="xs">Views may override it.</Text>}
      </Group>
      {props.overrides.map(({ view, setting: o }) => (
        <Text size="sm" key={view.id}>
          Overridden in view <strong>{view.display_name}</strong> ({view.locale}): <Code>{JSON.stringify(o.value)}</Code>
        </Text>
      ))}
    </Stack>
  );
}
