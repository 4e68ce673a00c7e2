/**
 * Publishing a post: publish now, schedule (a date and a time on the website's clock, also shown
 * on the person's own clock), unpublish. Unsaved changes are saved first, so what goes live is
 * what is on the screen.
 */
import { useState } from 'react';
import { Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { DateInput, TimeInput } from '@mantine/dates';
import '@mantine/dates/styles.css';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { rest } from '../pages/editor/rest';
import type { ContentDoc } from '../pages/editor/use-content-doc';
import type { BlogPost } from './blog-data';
import { formatInZone, ownZone, utcToZoned, zonedToUtc } from './schedule-time';

const ITEM = '/tenant-api/v1/websites/{website_id}/blog_posts/{blog_post_id}' as const;

/** Names of the calendar's controls (icon-only buttons otherwise). */
const CALENDAR_LABELS = {
  previousMonth: 'Previous month',
  nextMonth: 'Next month',
  previousYear: 'Previous year',
  nextYear: 'Next year',
  previousDecade: 'Previous decade',
  nextDecade: 'Next decade',
  monthLevelControl: 'Choose another month',
  yearLevelControl: 'Choose another year',
};

export function PublishPanel({
  websiteId,
  post,
  doc,
  canWrite,
  timeZone,
  onChanged,
}: {
  websiteId: string;
  post: BlogPost;
  doc: ContentDoc;
  canWrite: boolean;
  timeZone: string | undefined;
  onChanged(post: BlogPost): void;
}) {
  const api = useApi();
  const zone = timeZone || 'UTC';
  const mine = ownZone();
  const [scheduling, setScheduling] = useState(false);
  const initial = utcToZoned(post.state === 'SCHEDULED' && post.publish_time ? post.publish_time : new Date(Date.now() + 60 * 60_000).toISOString(), zone);
  const [date, setDate] = useState<string | null>(initial.date);
  const [time, setTime] = useState(initial.time);
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<unknown>();
  const path = { website_id: websiteId, blog_post_id: post.id };

  /** Saves typed changes first; answers the etag to act on (undefined: the save failed, its error shows). */
  const current = async (): Promise<string | undefined> => {
    if (!doc.dirty) return doc.base?.etag ?? post.etag;
    const saved = await doc.save();
    return saved?.etag;
  };
  const act = async (name: string, call: (etag: string) => Promise<BlogPost>) => {
    setBusy(name);
    setError(undefined);
    try {
      const etag = await current();
      if (!etag) return;
      const answer = await call(etag);
      onChanged(answer);
      setScheduling(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(undefined);
    }
  };
  const publishAt = date && /^\d{2}:\d{2}$/.test(time) ? zonedToUtc(date, time, zone) : undefined;
  const errors = fieldErrorsOf(error);

  return (
    <Paper withBorder p="sm">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Publishing
        </Title>
        {post.state === 'PUBLISHED' && post.publish_time && <Text size="sm">Published {formatInZone(post.publish_time, zone)}.</Text>}
        {post.state === 'SCHEDULED' && post.publish_time && (
          <Stack gap={2} role="status">
            <Text size="sm">Scheduled for {formatInZone(post.publish_time, zone)}</Text>
            {mine !== zone && <Text size="sm">= {formatInZone(post.publish_time, mine)} on your clock</Text>}
          </Stack>
        )}
        {post.state === 'DRAFT' && <Text size="sm">A draft: only people with access to the admin see it.</Text>}
        <ApiErrorAlert error={error && !errors.publish_time ? error : undefined} title="Not done" />
        {canWrite && (
          <Group gap="xs">
            {post.state !== 'PUBLISHED' && (
              <Button
                loading={busy === 'publish'}
                onClick={() => void act('publish', (etag) => rest<BlogPost>(api, 'POST', `${ITEM}:publish` as never, { path, ifMatch: etag }))}
              >
                {doc.dirty ? 'Save and publish now' : 'Publish now'}
              </Button>
            )}
            {post.state !== 'PUBLISHED' && (
              <Button variant="default" onClick={() => setScheduling((s) => !s)} aria-expanded={scheduling}>
                {post.state === 'SCHEDULED' ? 'Reschedule' : 'Schedule'}
              </Button>
            )}
            {post.state !== 'DRAFT' && (
              <Button
                variant="default"
                color="red"
                loading={busy === 'unpublish'}
                onClick={() => void act('unpublish', (etag) => rest<BlogPost>(api, 'POST', `${ITEM}:unpublish` as never, { path, ifMatch: etag }))}
              >
                {post.state === 'SCHEDULED' ? 'Cancel the schedule' : 'Unpublish'}
              </Button>
            )}
          </Group>
        )}
        {canWrite && scheduling && (
          <Stack gap="xs" p="xs" style={{ border: '1px solid var(--mantine-color-gray-4)', borderRadius: 6 }}>
            <Text size="sm">On the website’s clock ({zone}):</Text>
            <Group grow align="flex-start">
              <DateInput
                label="Publish date"
                valueFormat="YYYY-MM-DD"
                value={date}
                onChange={setDate}
                minDate={utcToZoned(new Date().toISOString(), zone).date}
                ariaLabels={CALENDAR_LABELS}
              />
              <TimeInput label="Publish time" value={time} onChange={(e) => setTime(e.currentTarget.value)} />
            </Group>
            {publishAt && (
              <Text size="sm" role="status">
                Goes live {formatInZone(publishAt, zone)}
                {mine !== zone ? ` = ${formatInZone(publishAt, mine)} on your clock` : ''}.
              </Text>
            )}
            {errors.publish_time && (
              <Text size="sm" c="red.9" role="alert">
                {errors.publish_time}
              </Text>
            )}
            <Button
              disabled={!publishAt}
              loading={busy === 'schedule'}
              onClick={() =>
                void act('schedule', (etag) => rest<BlogPost>(api, 'PATCH', ITEM, { path, body: { state: 'SCHEDULED', publish_time: publishAt }, ifMatch: etag }))
              }
            >
              {doc.dirty ? 'Save and schedule' : 'Schedule'}
            </Button>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
