/** Names and formats of the analytics metrics (as Plausible words them). */
export const METRIC_LABELS: Record<string, string> = {
  visitors: 'Unique visitors',
  visits: 'Visits',
  pageviews: 'Page views',
  views_per_visit: 'Views per visit',
  bounce_rate: 'Bounce rate',
  visit_duration: 'Visit duration',
  events: 'Events',
};

export const DIMENSION_LABELS: Record<string, string> = {
  page: 'Page',
  event_name: 'Event',
  entry_page: 'Entry page',
  exit_page: 'Exit page',
  source: 'Source',
  utm_source: 'UTM source',
  utm_medium: 'UTM medium',
  utm_campaign: 'UTM campaign',
  utm_term: 'UTM term',
  utm_content: 'UTM content',
  device: 'Device',
  browser: 'Browser',
  os: 'Operating system',
  view: 'View',
};

const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });

export function formatMetric(metric: string, value: number | undefined | null): string {
  if (value === undefined || value === null) return '—';
  if (metric === 'bounce_rate') return `${decimal.format(value)}%`;
  if (metric === 'views_per_visit') return decimal.format(value);
  if (metric === 'visit_duration') {
    const s = Math.round(value);
    return s >= 60 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${s}s`;
  }
  return integer.format(value);
}

export const metricLabel = (metric: string) => METRIC_LABELS[metric] ?? metric;
export const dimensionLabel = (dimension: string) => DIMENSION_LABELS[dimension] ?? dimension;
