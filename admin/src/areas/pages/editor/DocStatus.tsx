/** What the editors show about saving: a conflict with the differences and the choice, a failed save, a draft kept in this browser. */
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { ApiErrorAlert, fieldErrorsOf } from '../../../lib/errors';
import { DiffView } from './DiffView';
import { changedFields } from './diff-view';
import type { ContentDoc } from './use-content-doc';

export function ConflictPanel({ doc, labels, richText = [] }: { doc: ContentDoc; labels: Record<string, string>; richText?: readonly string[] }) {
  if (!doc.conflict) return null;
  const theirs = doc.conflict.theirs.values;
  const fields = changedFields(theirs, doc.values, Object.keys(labels), richText);
  return (
    <Alert color="orange" role="alert" title="Someone else saved this while you were editing" variant="outline">
      <Stack gap="sm">
        <Text size="sm">
          Nothing you typed is lost. Below, what changes if your version is saved over theirs (<del>their text</del> → <ins>yours</ins>). Keep yours, take
          theirs, or take theirs for single fields and then save.
        </Text>
        {fields.length === 0 && <Text size="sm">Your text and theirs are the same; saving keeps it.</Text>}
        {fields.map((f) => (
          <Stack key={f} gap={4}>
            <DiffView label={labels[f] ?? f} before={theirs[f]} after={doc.values[f]} richText={richText.includes(f)} />
            <Group>
              <Button size="xs" variant="default" onClick={() => doc.takeTheirs(f)}>
                Use their {labels[f]?.toLowerCase() ?? f}
              </Button>
            </Group>
          </Stack>
        ))}
        <Group>
          <Button onClick={() => void doc.keepMine()} loading={doc.saving}>
            Keep mine and save
          </Button>
          <Button variant="default" onClick={() => doc.takeTheirs()}>
            Take theirs (discard mine)
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}

export function DocStatus({ doc, labels, richText }: { doc: ContentDoc; labels: Record<string, string>; richText?: readonly string[] }) {
  return (
    <Stack gap="sm">
      {doc.stored && (
        <Alert color="blue" title="Unsaved changes were kept in this browser" role="status">
          <Text size="sm">
            Changes to {Object.keys(doc.stored.values).map((f) => labels[f] ?? f).join(', ')} from {new Date(doc.stored.time).toLocaleString()} were not saved.
          </Text>
          <Group mt="xs">
            <Button size="xs" onClick={doc.restoreStored}>
              Restore them
            </Button>
            <Button size="xs" variant="default" onClick={doc.discardStored}>
              Discard them
            </Button>
          </Group>
        </Alert>
      )}
      <ConflictPanel doc={doc} labels={labels} richText={richText} />
      {onFields(doc.error, labels) ? (
        <Alert color="red" role="alert" title="Not saved — your text is still here">
          Correct the fields marked below, then save again.
        </Alert>
      ) : (
        <ApiErrorAlert error={doc.error} title="Not saved — your text is still here" />
      )}
    </Stack>
  );
}

/** Whether every violation of a failed save names a field the editor shows (then the fields say it, not an alert). */
function onFields(error: unknown, labels: Record<string, string>): boolean {
  const fields = Object.keys(fieldErrorsOf(error));
  return fields.length > 0 && fields.every((f) => f in labels);
}
