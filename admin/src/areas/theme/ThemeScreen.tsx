/**
 * The theme: every CSS variable the site's design uses (the resource's `variable_definitions`) as a
 * named control of its type, presets, contrast warnings (WCAG AA) for the text/background pairs the
 * design draws, logo, favicon, main menu and footer block; beside them the rendered site in a frame
 * that shows unsaved values at once (the site's `?theme_preview=1` script takes the variables by
 * postMessage from this origin only). Save writes the theme with `If-Match`.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Accordion, Alert, Box, Button, Card, ColorInput, Grid, Group, Loader, SegmentedControl, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useElementSize, useMediaQuery } from '@mantine/hooks';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '@siteplatform/sdk';
import { data, type Schemas } from '../../lib/api';
import { contrastWarnings, parseColor } from '../../lib/contrast';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { listAll } from '../../lib/list-all';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { MediaField } from '../media';

type Theme = Schemas['Theme'];
type Definition = NonNullable<Theme['variable_definitions']>[number];
type Refs = { logo_media_id: string | null; favicon_media_id: string | null; main_menu_id: string | null; footer_block_id: string | null };

const GROUPS: Array<{ group: Definition['group']; title: string; note?: string }> = [
  { group: 'colors', title: 'Colours' },
  { group: 'dark_colors', title: 'Colours for a dark scheme', note: 'Used for visitors whose device prefers a dark colour scheme.' },
  { group: 'typography', title: 'Fonts and text size' },
  { group: 'layout', title: 'Corners, spacing and widths' },
];

/** A readable label from a variable name: `--color-on-primary-dark` → "On primary". */
export function variableLabel(name: string): string {
  const words = name.replace(/^--/, '').replace(/^(color|font)-/, '').replace(/-dark$/, '').replace(/-/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const LENGTH = /^(0|\d*\.?\d+(px|rem|em|%|ch|vw|vh|vmin|vmax))$/;

export function ThemeScreen() {
  usePageTitle('Theme');
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const canWrite = !!rights?.canWrite('website.theme');
  const key = ['theme', websiteId];
  const theme = useQuery({ queryKey: key, queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/theme', { params: { path: { website_id: websiteId } } })) });
  const website = useQuery({
    queryKey: ['websites', websiteId],
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}', { params: { path: { website_id: websiteId } } })),
  });
  const menus = useQuery({
    queryKey: ['navigation_menus', websiteId],
    queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/navigation_menus', { path: { website_id: websiteId }, query: { page_size: 100 } }),
  });
  const blocks = useQuery({
    queryKey: ['cms_blocks', websiteId, 'all'],
    queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/cms_blocks', { path: { website_id: websiteId }, query: { page_size: 100 } }),
  });

  // Unsaved edits over the stored theme (absent: as stored).
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [refEdits, setRefEdits] = useState<Partial<Refs>>({});
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState('');
  const [preset, setPreset] = useState<string | null>(null);
  const [frameVersion, setFrameVersion] = useState(0);

  const t = theme.data;
  const definitions = t?.variable_definitions ?? [];
  const stored = (t?.variables ?? {}) as Record<string, string>;
  const valueOf = (d: Definition) => edits[d.name] ?? stored[d.name] ?? d.default ?? '';
  const values = useMemo(() => Object.fromEntries(definitions.map((d) => [d.name, valueOf(d)])), [t, edits]); // eslint-disable-line react-hooks/exhaustive-deps
  const refs: Refs = {
    logo_media_id: refEdits.logo_media_id !== undefined ? refEdits.logo_media_id : (t?.logo_media_id ?? null),
    favicon_media_id: refEdits.favicon_media_id !== undefined ? refEdits.favicon_media_id : (t?.favicon_media_id ?? null),
    main_menu_id: refEdits.main_menu_id !== undefined ? refEdits.main_menu_id : (t?.main_menu_id ?? null),
    footer_block_id: refEdits.footer_block_id !== undefined ? refEdits.footer_block_id : (t?.footer_block_id ?? null),
  };
  const dirty = Object.entries(edits).some(([k, v]) => v !== (stored[k] ?? definitions.find((d) => d.name === k)?.default)) || Object.keys(refEdits).length > 0;
  const warnings = contrastWarnings(values);
  const fieldErrors = fieldErrorsOf(error);
  const lengthErrors = Object.fromEntries(definitions.filter((d) => d.type === 'length' && !LENGTH.test(valueOf(d).trim())).map((d) => [d.name, 'A length such as 16px, 1rem or 60%.']));

  const applyPreset = () => {
    const p = t?.presets?.find((x) => x.id === preset);
    if (!p) return;
    // A preset is its variables over the defaults.
    setEdits(Object.fromEntries(definitions.map((d) => [d.name, (p.variables as Record<string, string>)[d.name] ?? d.default ?? ''])));
    setStatus(`Preset ${p.display_name} applied; save to keep it.`);
  };

  const save = async () => {
    if (!t) return;
    setSaving(true);
    setError(undefined);
    try {
      const saved = await data(
        api.PATCH('/tenant-api/v1/websites/{website_id}/theme', {
          params: { path: { website_id: websiteId }, header: { 'If-Match': t.etag } },
          // Unknown variables (another tool's) are kept: the whole map goes back with ours over it.
          body: { variables: { ...stored, ...values }, ...refs },
        }),
      );
      qc.setQueryData(key, saved);
      setEdits({});
      setRefEdits({});
      setStatus('Theme saved.');
      setFrameVersion((v) => v + 1);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };
  const conflict = ApiError.is(error) && error.status === 'ABORTED';
  // Beside the controls on wide screens (and staying in view); above them, shorter, on narrow ones.
  const wide = useMediaQuery('(min-width: 75em)', true, { getInitialValueInEffect: false });

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Theme</Title>
        {canWrite && t && (
          <Group>
            <Button variant="default" disabled={!dirty || saving} onClick={() => (setEdits({}), setRefEdits({}), setStatus('Changes discarded.'))}>
              Discard changes
            </Button>
            <Button onClick={save} loading={saving} disabled={!dirty || Object.keys(lengthErrors).length > 0}>
              Save theme
            </Button>
          </Group>
        )}
      </Group>
      <Text role="status" aria-live="polite" size="sm">
        {status}
      </Text>
      <ApiErrorAlert error={theme.error} title="The theme could not be loaded" />
      {conflict ? (
        <Alert color="orange" title="Someone else saved the theme meanwhile" role="alert">
          <Text size="sm">Your changes are still here. Load their version to see it; your unsaved values stay on top of it, then save again.</Text>
          <Button mt="xs" size="xs" variant="default" onClick={() => (setError(undefined), void theme.refetch())}>
            Load their version
          </Button>
        </Alert>
      ) : (
        <ApiErrorAlert error={error} title="The theme was not saved" />
      )}
      {theme.isPending && <Loader role="status" aria-label="Loading the theme" />}
      {t && (
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, lg: 5 }} order={{ base: 2, lg: 1 }}>
            <Stack>
              {canWrite && (t.presets?.length ?? 0) > 0 && (
                <Card withBorder>
                  <Group align="flex-end">
                    <Select
                      label="Start from a preset"
                      placeholder="Choose a preset"
                      data={(t.presets ?? []).map((p) => ({ value: p.id, label: p.display_name }))}
                      value={preset}
                      onChange={setPreset}
                      description={t.presets?.find((p) => p.id === preset)?.description}
                      style={{ flex: 1 }}
                    />
                    <Button variant="default" disabled={!preset} onClick={applyPreset}>
                      Apply
                    </Button>
                  </Group>
                </Card>
              )}
              {warnings.length > 0 && (
                <Alert color="orange" title="Some text may be hard to read">
                  <Box component="ul" m={0} pl="md">
                    {warnings.map((w) => (
                      <li key={`${w.text}|${w.background}`}>
                        <Text size="sm">
                          {w.label}: contrast {w.ratio.toFixed(2)}:1, WCAG AA asks for {w.minimum}:1.
                        </Text>
                      </li>
                    ))}
                  </Box>
                </Alert>
              )}
              <Accordion multiple defaultValue={['colors', 'brand']} variant="separated">
                {GROUPS.map(({ group, title, note }) => {
                  const defs = definitions.filter((d) => d.group === group);
                  if (defs.length === 0) return null;
                  return (
                    <Accordion.Item key={group} value={group ?? ''}>
                      <Accordion.Control>{title}</Accordion.Control>
                      <Accordion.Panel>
                        <Stack gap="sm">
                          {note && <Text size="sm">{note}</Text>}
                          {defs.map((d) => (
                            <VariableControl
                              key={d.name}
                              definition={d}
                              value={valueOf(d)}
                              disabled={!canWrite}
                              error={lengthErrors[d.name] ?? fieldErrors[`variables.${d.name}`] ?? fieldErrors[`variables["${d.name}"]`]}
                              onChange={(v) => setEdits((e) => ({ ...e, [d.name]: v }))}
                            />
                          ))}
                        </Stack>
                      </Accordion.Panel>
                    </Accordion.Item>
                  );
                })}
                <Accordion.Item value="brand">
                  <Accordion.Control>Logo, favicon, menu and footer</Accordion.Control>
                  <Accordion.Panel>
                    <Stack gap="sm">
                      <MediaField websiteId={websiteId} label="Logo" value={refs.logo_media_id} onChange={(v) => setRefEdits((r) => ({ ...r, logo_media_id: v }))} readOnly={!canWrite} />
                      {fieldErrors.logo_media_id && <Text size="sm" c="red.9">{fieldErrors.logo_media_id}</Text>}
                      <MediaField websiteId={websiteId} label="Favicon" value={refs.favicon_media_id} onChange={(v) => setRefEdits((r) => ({ ...r, favicon_media_id: v }))} readOnly={!canWrite} />
                      {fieldErrors.favicon_media_id && <Text size="sm" c="red.9">{fieldErrors.favicon_media_id}</Text>}
                      <Select
                        label="Main menu"
                        placeholder="None"
                        clearable
                        clearButtonProps={{ 'aria-label': 'Clear' }}
                        disabled={!canWrite}
                        data={(menus.data ?? []).map((m) => ({ value: m.id, label: `${m.display_name} (${m.identifier})` }))}
                        value={refs.main_menu_id}
                        onChange={(v) => setRefEdits((r) => ({ ...r, main_menu_id: v }))}
                        error={fieldErrors.main_menu_id}
                      />
                      <Select
                        label="Footer block"
                        placeholder="None"
                        clearable
                        clearButtonProps={{ 'aria-label': 'Clear' }}
                        disabled={!canWrite}
                        data={(blocks.data ?? []).map((b) => ({ value: b.id, label: `${b.title} (${b.identifier})` }))}
                        value={refs.footer_block_id}
                        onChange={(v) => setRefEdits((r) => ({ ...r, footer_block_id: v }))}
                        error={fieldErrors.footer_block_id}
                      />
                      <Text size="sm">The preview shows logo, favicon, menu and footer once saved.</Text>
                    </Stack>
                  </Accordion.Panel>
                </Accordion.Item>
              </Accordion>
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 7 }} order={{ base: 1, lg: 2 }}>
            <Box style={wide ? { position: 'sticky', top: 'calc(var(--app-shell-header-height, 60px) + 16px)' } : undefined}>
              {website.data?.website_url ? (
                <SitePreview url={website.data.website_url} variables={values} version={frameVersion} dirty={dirty} wide={wide} />
              ) : (
                <Card withBorder>{website.isPending ? <Loader role="status" aria-label="Loading the preview" /> : <Text>The website has no address yet, so there is nothing to preview.</Text>}</Card>
              )}
            </Box>
          </Grid.Col>
        </Grid>
      )}
    </Stack>
  );
}

function VariableControl({ definition: d, value, onChange, disabled, error }: { definition: Definition; value: string; onChange: (v: string) => void; disabled: boolean; error?: string }) {
  const label = variableLabel(d.name);
  const description = `${d.description ?? ''} (${d.name})`;
  if (d.type === 'color') {
    // Mantine's picker dropdown has unnamed sliders (axe); the browser's own colour picker is labelled.
    const rgb = parseColor(value);
    const hex = rgb ? `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}` : '#000000';
    return (
      <ColorInput
        label={label}
        description={description}
        value={value}
        onChange={onChange}
        format="hex"
        withPicker={false}
        withEyeDropper={false}
        disabled={disabled}
        error={error}
        rightSection={
          <input
            type="color"
            aria-label={`${label}: choose with the colour picker`}
            value={hex}
            disabled={disabled}
            onChange={(e) => onChange(e.currentTarget.value)}
            style={{ width: 28, height: 24, padding: 0, border: 0, background: 'none', cursor: 'pointer' }}
          />
        }
      />
    );
  }
  if (d.type === 'font') {
    const options = (d.options ?? []).map((o) => ({ value: o.value, label: o.label }));
    if (value && !options.some((o) => o.value === value)) options.push({ value, label: `Custom: ${value}` });
    return <Select label={label} description={description} data={options} value={value} onChange={(v) => v && onChange(v)} allowDeselect={false} disabled={disabled} error={error} />;
  }
  return <TextInput label={label} description={description} value={value} onChange={(e) => onChange(e.currentTarget.value)} disabled={disabled} error={error} />;
}

/**
 * The rendered site in a frame, with unsaved variables applied by the site's preview script (it
 * announces itself with `theme-preview-ready`; every change is posted again). `version` reloads it
 * (after a save: logo, menu and footer are rendered by the server).
 */
function SitePreview({ url, variables, version, dirty, wide }: { url: string; variables: Record<string, string>; version: number; dirty: boolean; wide: boolean }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const origin = new URL(url).origin;
  const src = `${url.replace(/\/$/, '')}/?theme_preview=1`;
  const latest = useRef(variables);
  latest.current = variables;
  // The site as a desktop or a phone shows it, scaled down to the room beside the controls.
  const [device, setDevice] = useState<'desktop' | 'phone'>(wide ? 'desktop' : 'phone');
  const { ref: box, width: room } = useElementSize();
  const deviceWidth = device === 'desktop' ? 1280 : 390;
  const scale = room > 0 ? Math.min(1, room / deviceWidth) : 1;
  const shownHeight = wide ? 640 : 420;
  const post = () => frame.current?.contentWindow?.postMessage({ type: 'theme-preview', variables: latest.current }, origin);
  useEffect(() => {
    const onMessage = (e: MessageEvent) => {
      if (e.origin === origin && e.source === frame.current?.contentWindow && e.data?.type === 'theme-preview-ready') post();
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [origin]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(post, [variables]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <Card withBorder padding={0}>
      <Group justify="space-between" px="sm" py={6} gap="xs">
        <Text size="sm" fw={500}>
          Preview {dirty ? '(unsaved changes)' : ''}
        </Text>
        <Group gap="xs">
          <SegmentedControl
            size="xs"
            aria-label="Preview width"
            value={device}
            onChange={(v) => setDevice(v as 'desktop' | 'phone')}
            data={[
              { value: 'desktop', label: 'Desktop' },
              { value: 'phone', label: 'Phone' },
            ]}
          />
          <Text size="sm" component="a" href={url} target="_blank" rel="noreferrer" c="blue.8">
            Open the site
          </Text>
        </Group>
      </Group>
      <Box ref={box} style={{ height: shownHeight, overflow: 'hidden', background: 'var(--mantine-color-gray-1)' }}>
        <iframe
          key={version}
          ref={frame}
          src={src}
          title="Preview of the website with these theme values"
          style={{
            width: deviceWidth,
            height: shownHeight / scale,
            border: 0,
            display: 'block',
            transform: `scale(${scale})`,
            transformOrigin: 'top left',
            margin: device === 'phone' && room > deviceWidth ? '0 auto' : undefined,
          }}
        />
      </Box>
    </Card>
  );
}
