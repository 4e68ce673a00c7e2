/** One dashboard widget's answer: numbers with their change, a time series chart, or a breakdown table. */
import { Badge, Group, Loader, SimpleGrid, Stack, Table, Text, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, type Schemas } from '@siteplatform/sdk';
import { useMemo } from 'react';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { TimeChart } from '../../lib/charts/TimeChart';
import { percentChange, type WidgetKind } from './date-range';
import { dimensionLabel, formatMetric, metricLabel } from './metrics';

type Answer = Schemas['QueryAnalyticsResponse'];
type Metrics = Answer['totals'];

export function useAnalyticsQuery(websiteId: string, query: Record<string, unknown>, enabled = true) {
  const api = useApi();
  return useQuery({
    queryKey: ['analytics-query', websiteId, query],
    enabled,
    queryFn: () =>
      data(api.POST('/tenant-api/v1/websites/{website_id}/analytics:query', { params: { path: { website_id: websiteId } }, body: query as Schemas['QueryAnalyticsRequest'] })),
    // Visits arrive all the time: look again every minute while the screen is open.
    refetchInterval: 60_000,
  });
}

const metricOf = (m: Metrics | undefined, name: string) => (m as Record<string, number | undefined> | undefined)?.[name];

function Approximate({ answer }: { answer: Answer }) {
  if (!answer.approximate) return null;
  const error = Math.round(answer.sketch_relative_error * 1000) / 10;
  return (
    <Tooltip label={`Visitor counts of this period are estimated from merged sketches (about ±${error}%).`}>
      <Badge variant="dot" color="yellow.8" size="sm" tabIndex={0}>
        Approximate visitors (±{error}%)
      </Badge>
    </Tooltip>
  );
}

function Numbers({ answer }: { answer: Answer }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: Math.min(6, answer.metrics.length) }} spacing="sm" verticalSpacing="xs">
      {answer.metrics.map((metric) => {
        const value = metricOf(answer.totals, metric);
        const previous = metricOf(answer.comparison?.totals, metric);
        const change = percentChange(value, previous);
        const approximate = answer.approximate_metrics.includes('visitors') && metric === 'visitors';
        // For bounce rate and duration "down" is not necessarily bad: the change is stated, not judged.
        return (
          <Stack key={metric} gap={0}>
            <Text size="sm">{metricLabel(metric)}</Text>
            <Text fw={700} fz="xl" data-metric={metric}>
              {approximate && <abbr title="approximately">≈</abbr>}
              {formatMetric(metric, value)}
            </Text>
            {answer.comparison && (
              <Text size="xs">
                {change === undefined ? `was ${formatMetric(metric, previous)}` : `${change > 0 ? '+' : ''}${change}% (was ${formatMetric(metric, previous)})`}
              </Text>
            )}
          </Stack>
        );
      })}
    </SimpleGrid>
  );
}

/** Bucket label: the local date (and hour) as the API wrote it, in the site's zone. */
const bucketLabel = (start: string | undefined, interval: string | undefined) => (!start ? '' : interval === 'hour' ? start.slice(0, 16).replace('T', ' ') : start.slice(0, 10));

function Chart({ answer, title }: { answer: Answer; title: string }) {
  const metric = answer.metrics[0]!;
  const chart = useMemo(() => {
    const rows = answer.rows;
    const axis = rows.map((r) => {
      const s = r.start_time ?? '';
      return answer.interval === 'hour' ? s.slice(11, 16) : answer.interval === 'month' ? s.slice(0, 7) : s.slice(5, 10);
    });
    const labels = rows.map((r) => bucketLabel(r.start_time, answer.interval));
    const values = rows.map((r) => metricOf(r.metrics, metric) ?? 0);
    const series = [{ label: `${metricLabel(metric)} (${answer.start_date} to ${answer.end_date})`, values }];
    if (answer.comparison) {
      const previous = answer.comparison.rows.map((r) => metricOf(r.metrics, metric) ?? 0);
      series.push({ label: `${metricLabel(metric)} (${answer.comparison.start_date} to ${answer.comparison.end_date})`, values: rows.map((_, i) => previous[i] ?? null) as number[], secondary: true } as never);
    }
    const peak = values.reduce((best, v, i) => (v > (values[best] ?? -1) ? i : best), 0);
    const summary = `${title}: ${metricLabel(metric)} per ${answer.interval} from ${answer.start_date} to ${answer.end_date} (${answer.time_zone}); total ${formatMetric(metric, metricOf(answer.totals, metric))}${
      values.length ? `, highest ${formatMetric(metric, values[peak])} on ${labels[peak]}` : ''
    }.`;
    return { axis, labels, series, summary };
  }, [answer, metric, title]);
  if (answer.rows.length === 0) return <Text size="sm">No data in this period.</Text>;
  return <TimeChart timeLabels={chart.labels} axisLabels={chart.axis} series={chart.series} summary={chart.summary} caption={chart.summary} format={(v) => formatMetric(metric, v)} height={180} />;
}

/** The website's views by id, to name the rows of a breakdown by view. */
function useViewNames(websiteId: string, enabled: boolean) {
  const api = useApi();
  const views = useQuery({
    queryKey: ['views', websiteId, 'names'],
    enabled,
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/views', { params: { path: { website_id: websiteId }, query: { page_size: 100 } } })),
    staleTime: 300_000,
  });
  return (id: string) => (views.data?.views as Array<{ id: string; display_name?: string }> | undefined)?.find((v) => v.id === id)?.display_name ?? id;
}

function Breakdown({ answer, title, websiteId }: { answer: Answer; title: string; websiteId: string }) {
  const dimension = answer.dimensions?.[0] ?? '';
  const metric = answer.metrics[0]!;
  const viewName = useViewNames(websiteId, dimension === 'view');
  if (answer.rows.length === 0) return <Text size="sm">Nothing in this period yet.</Text>;
  const max = Math.max(1, ...answer.rows.map((r) => metricOf(r.metrics, metric) ?? 0));
  return (
    <Table fz="sm" verticalSpacing={4} aria-label={title}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">{dimensionLabel(dimension)}</Table.Th>
          <Table.Th scope="col" ta="right">
            {metricLabel(metric)}
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {answer.rows.map((row, i) => {
          const value = metricOf(row.metrics, metric) ?? 0;
          const value0 = row.dimensions?.[dimension];
          const label = value0 ? (dimension === 'view' ? viewName(value0) : value0) : dimension === 'source' ? 'Direct / none' : '(none)';
          return (
            <Table.Tr key={`${label}-${i}`}>
              <Table.Td style={{ background: `linear-gradient(90deg, var(--mantine-color-blue-0) ${(value / max) * 100}%, transparent 0)`, wordBreak: 'break-all' }}>{label}</Table.Td>
              <Table.Td ta="right">{formatMetric(metric, value)}</Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

export function WidgetView({ websiteId, query, kind, title }: { websiteId: string; query: Record<string, unknown>; kind: WidgetKind; title: string }) {
  const answer = useAnalyticsQuery(websiteId, query);
  if (answer.isPending) return <Loader size="sm" role="status" aria-label={`Loading ${title}`} />;
  if (answer.error) return <ApiErrorAlert error={answer.error} title={`${title} could not be loaded`} />;
  const a = answer.data;
  return (
    <Stack gap="xs">
      <Group gap="xs">
        <Approximate answer={a} />
      </Group>
      {kind === 'number' && <Numbers answer={a} />}
      {kind === 'chart' && <Chart answer={a} title={title} />}
      {kind === 'table' && <Breakdown answer={a} title={title} websiteId={websiteId} />}
    </Stack>
  );
}
