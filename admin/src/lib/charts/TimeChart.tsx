/**
 * A time series drawn with uPlot (canvas; ~50 KB, fast on thousands of points — chosen over SVG
 * chart kits for size and speed, docs/decisions.md). A canvas says nothing to a screen reader, so
 * the chart is an image with a summary (`aria-label`) and the same figures are one click away as
 * a data table.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { Box, Button, Table, Text } from '@mantine/core';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** Drawn dashed and grey (a comparison period). */
  secondary?: boolean;
}

export interface TimeChartProps {
  /** Each bucket's label in the table (e.g. its local date, as the API wrote it in the site's zone). */
  timeLabels: string[];
  /** Shorter labels for the axis (default: timeLabels). */
  axisLabels?: string[];
  series: ChartSeries[];
  /** One sentence: what the chart shows and its range, totals or peak (the image's text alternative). */
  summary: string;
  /** The table's caption. */
  caption: string;
  format?: (value: number) => string;
  height?: number;
  bars?: boolean;
}

const PRIMARY = '#1864ab';
const SECONDARY = '#5c5f66';

export function TimeChart({ timeLabels, axisLabels = timeLabels, series, summary, caption, format = (v) => String(v), height = 220, bars = false }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const [table, setTable] = useState(false);
  // The x axis is the bucket's index, labelled with the API's local dates: drawing by instant would
  // label buckets in the browser's time zone, not the site's.
  const data = useMemo(() => [timeLabels.map((_, i) => i), ...series.map((s) => s.values)] as uPlot.AlignedData, [timeLabels, series]);
  const n = timeLabels.length;

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false, range: () => [bars ? -0.5 : 0, Math.max(1, n - (bars ? 0.5 : 1))] }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
      axes: [
        {
          stroke: '#495057',
          grid: { stroke: '#e9ecef' },
          // About six labelled buckets, whatever the width.
          splits: () => {
            const step = Math.max(1, Math.ceil(n / 6));
            return Array.from({ length: Math.ceil(n / step) }, (_, k) => k * step);
          },
          values: (_u, splits) => splits.map((i) => axisLabels[i] ?? ''),
        },
        { stroke: '#495057', grid: { stroke: '#e9ecef' }, values: (_u, splits) => splits.map((v) => format(v)), size: 60 },
      ],
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: s.secondary ? SECONDARY : PRIMARY,
          width: 2,
          ...(s.secondary && { dash: [6, 4] }),
          ...(bars && !s.secondary && { fill: 'rgba(24,100,171,0.35)', paths: uPlot.paths.bars!({ size: [0.6, 40] }) }),
          points: { show: n <= 1 },
        })),
      ],
    };
    const plot = new uPlot(opts, data, el);
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(200, el.clientWidth), height }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [data, series, height, bars, format, n, axisLabels]);

  return (
    <Box>
      {/* overflow hidden: the canvas must not hold its container wide when the screen narrows. */}
      <div ref={box} role="img" aria-label={summary} style={{ width: '100%', minWidth: 0, overflow: 'hidden', minHeight: height }} />
      <Button variant="default" size="compact-sm" mt={4} aria-expanded={table} onClick={() => setTable((v) => !v)}>
        {table ? 'Hide data table' : 'Show data table'}
      </Button>
      {table && (
        <Table.ScrollContainer minWidth={240} mah={260}>
          <Table striped fz="sm">
            <caption style={{ textAlign: 'left' }}>
              <Text size="sm">{caption}</Text>
            </caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Period</Table.Th>
                {series.map((s) => (
                  <Table.Th scope="col" key={s.label} ta="right">
                    {s.label}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {timeLabels.map((label, i) => (
                <Table.Tr key={`${label}-${i}`}>
                  <Table.Th scope="row" fw={400}>
                    {label}
                  </Table.Th>
                  {series.map((s) => (
                    <Table.Td key={s.label} ta="right">
                      {s.values[i] === null || s.values[i] === undefined ? '—' : format(s.values[i]!)}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Box>
  );
}
