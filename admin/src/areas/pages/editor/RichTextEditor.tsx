/**
 * The rich-text body of pages, blocks and posts (TipTap): headings, lists, links, images from the
 * media library, tables and embedded blocks. Produces only HTML the API's sanitiser keeps
 * (src/cms/content-html.ts); an embedded block is `<div data-block="identifier"></div>`, the form
 * the renderer expands (architecture.md, CMS site contribution).
 */
import { useEffect, useRef, useState } from 'react';
import { ActionIcon, Box, Button, Group, Modal, Select, Stack, Text, TextInput, Tooltip } from '@mantine/core';
import { Node, mergeAttributes } from '@tiptap/core';
import { EditorContent, useEditor, useEditorState, type Editor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import Image from '@tiptap/extension-image';
import { TableKit } from '@tiptap/extension-table';
import { useQuery } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../../lib/session';
import { ImagePicker } from '../../media/ImagePicker';
import classes from './RichTextEditor.module.css';

/** `<div data-block="id"></div>`: a reusable block placed by identifier, shown as a labelled chip while editing. */
export const BlockEmbed = Node.create({
  name: 'blockEmbed',
  group: 'block',
  atom: true,
  selectable: true,
  draggable: true,
  addAttributes() {
    return { identifier: { default: '', parseHTML: (el) => el.getAttribute('data-block') ?? '', renderHTML: (attrs) => ({ 'data-block': attrs.identifier }) } };
  },
  parseHTML() {
    return [{ tag: 'div[data-block]' }];
  },
  renderHTML({ HTMLAttributes }) {
    return ['div', mergeAttributes(HTMLAttributes)];
  },
});

/** Toolbar icons (paths of Tabler Icons, MIT), for the buttons without a letter. */
const ICONS: Record<string, string> = {
  link: 'M9 15l6 -6 M11 6l.463 -.536a5 5 0 0 1 7.071 7.072l-.534 .464 M13 18l-.397 .534a5.068 5.068 0 0 1 -7.127 0a4.972 4.972 0 0 1 0 -7.071l.524 -.463',
  image: 'M15 8h.01 M3 6a3 3 0 0 1 3 -3h12a3 3 0 0 1 3 3v12a3 3 0 0 1 -3 3h-12a3 3 0 0 1 -3 -3v-12z M3 16l5 -5c.928 -.893 2.072 -.893 3 0l5 5 M14 14l1 -1c.928 -.893 2.072 -.893 3 0l3 3',
  table: 'M3 5a2 2 0 0 1 2 -2h14a2 2 0 0 1 2 2v14a2 2 0 0 1 -2 2h-14a2 2 0 0 1 -2 -2v-14z M3 10h18 M10 3v18',
  block: 'M4 4h6v6h-6z M14 4h6v6h-6z M4 14h6v6h-6z M14 14h6v6h-6z',
};

interface Props {
  label: string;
  value: string;
  onChange(html: string): void;
  /** Changes when the value was replaced from outside (load, another version taken): the editor shows it anew. */
  resetKey: unknown;
  readOnly?: boolean;
  websiteId: string;
}

export function RichTextEditor({ label, value, onChange, resetKey, readOnly, websiteId }: Props) {
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const editor = useEditor({
    extensions: [
      StarterKit.configure({ link: { openOnClick: false, autolink: true, defaultProtocol: 'https', HTMLAttributes: { rel: null, target: null } } }),
      Image.configure({ HTMLAttributes: {} }),
      TableKit.configure({ table: { resizable: false } }),
      BlockEmbed,
    ],
    content: value,
    editable: !readOnly,
    editorProps: { attributes: { role: 'textbox', 'aria-multiline': 'true', 'aria-label': label, class: classes.content } },
    onUpdate: ({ editor }) => onChangeRef.current(editor.isEmpty ? '' : editor.getHTML()),
  });

  // A value from outside (not typed here): shown without emitting a change.
  useEffect(() => {
    if (editor && !editor.isDestroyed && editor.getHTML() !== value) editor.commands.setContent(value || '', { emitUpdate: false });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [resetKey, editor]);
  useEffect(() => {
    editor?.setEditable(!readOnly);
  }, [editor, readOnly]);

  return (
    <Box className={classes.frame}>
      {!readOnly && editor && <Toolbar editor={editor} websiteId={websiteId} label={label} />}
      <EditorContent editor={editor} />
    </Box>
  );
}

function Toolbar({ editor, websiteId, label }: { editor: Editor; websiteId: string; label: string }) {
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      h2: e.isActive('heading', { level: 2 }),
      h3: e.isActive('heading', { level: 3 }),
      bold: e.isActive('bold'),
      italic: e.isActive('italic'),
      bullet: e.isActive('bulletList'),
      ordered: e.isActive('orderedList'),
      quote: e.isActive('blockquote'),
      link: e.isActive('link'),
      table: e.isActive('table'),
    }),
  });
  const [linkOpen, setLinkOpen] = useState(false);
  const [imageOpen, setImageOpen] = useState(false);
  const [blockOpen, setBlockOpen] = useState(false);
  const chain = () => editor.chain().focus();
  // Back into the text once a dialog has gone (its focus trap lets go only at the end of its exit transition).
  const refocus = () => editor.commands.focus();
  const b = (name: string, text: string, active: boolean, run: () => void) => (
    <Tooltip label={name} withArrow openDelay={400}>
      <ActionIcon variant={active ? 'filled' : 'default'} size="lg" aria-label={name} aria-pressed={active} onClick={run}>
        {/* Drawn by CSS or SVG, so the button's only text is its name (axe: label-content-name-mismatch). */}
        {ICONS[text] ? (
          <svg aria-hidden width="18" height="18" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
            <path d={ICONS[text]} />
          </svg>
        ) : (
          <span aria-hidden className={classes.glyph} data-glyph={text} />
        )}
      </ActionIcon>
    </Tooltip>
  );
  return (
    <Group gap={4} p={6} className={classes.toolbar} role="toolbar" aria-label={`${label} formatting`}>
      {b('Heading 2', 'H2', state.h2, () => chain().toggleHeading({ level: 2 }).run())}
      {b('Heading 3', 'H3', state.h3, () => chain().toggleHeading({ level: 3 }).run())}
      {b('Bold', 'B', state.bold, () => chain().toggleBold().run())}
      {b('Italic', 'I', state.italic, () => chain().toggleItalic().run())}
      {b('Bulleted list', '•', state.bullet, () => chain().toggleBulletList().run())}
      {b('Numbered list', '1.', state.ordered, () => chain().toggleOrderedList().run())}
      {b('Quote', '“', state.quote, () => chain().toggleBlockquote().run())}
      {b('Link', 'link', state.link, () => setLinkOpen(true))}
      {b('Image', 'image', false, () => setImageOpen(true))}
      {b('Table', 'table', state.table, () => (state.table ? undefined : chain().insertTable({ rows: 3, cols: 3, withHeaderRow: true }).run()))}
      {state.table && b('Add row', '+R', false, () => chain().addRowAfter().run())}
      {state.table && b('Add column', '+C', false, () => chain().addColumnAfter().run())}
      {state.table && b('Delete table', '×T', false, () => chain().deleteTable().run())}
      {b('Embed a block', 'block', false, () => setBlockOpen(true))}
      <LinkDialog
        opened={linkOpen}
        initial={(editor.getAttributes('link').href as string | undefined) ?? ''}
        onClose={() => setLinkOpen(false)}
        onClosed={refocus}
        onSubmit={(href) => {
          setLinkOpen(false);
          if (!href) chain().extendMarkRange('link').unsetLink().run();
          else if (editor.state.selection.empty && !editor.isActive('link')) chain().insertContent({ type: 'text', text: href, marks: [{ type: 'link', attrs: { href } }] }).run();
          else chain().extendMarkRange('link').setLink({ href }).run();
        }}
      />
      <ImagePicker
        websiteId={websiteId}
        returnFocus={false}
        opened={imageOpen}
        onClose={() => setImageOpen(false)}
        onClosed={refocus}
        onPick={(media) => {
          setImageOpen(false);
          if (media.url) chain().setImage({ src: media.url, alt: media.alt_text ?? '' }).run();
        }}
      />
      <BlockDialog
        websiteId={websiteId}
        opened={blockOpen}
        onClose={() => setBlockOpen(false)}
        onClosed={refocus}
        onPick={(identifier) => {
          setBlockOpen(false);
          chain().insertContent({ type: 'blockEmbed', attrs: { identifier } }).run();
        }}
      />
    </Group>
  );
}

function LinkDialog({ opened, initial, onClose, onClosed, onSubmit }: { opened: boolean; initial: string; onClose(): void; onClosed(): void; onSubmit(href: string): void }) {
  const [href, setHref] = useState(initial);
  useEffect(() => {
    if (opened) setHref(initial);
  }, [opened, initial]);
  const problem = href && !/^(https?:\/\/|mailto:|tel:|\/|#)/.test(href) ? 'Start with https://, http://, mailto:, tel: or / (a page of this site).' : undefined;
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={onClose} title="Link" returnFocus={false} onExitTransitionEnd={onClosed}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!problem) onSubmit(href.trim());
        }}
      >
        <Stack>
          <TextInput label="Address" description="Empty removes the link." value={href} onChange={(e) => setHref(e.currentTarget.value)} error={problem} data-autofocus />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit">Apply link</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function BlockDialog({ websiteId, opened, onClose, onClosed, onPick }: { websiteId: string; opened: boolean; onClose(): void; onClosed(): void; onPick(identifier: string): void }) {
  const api = useApi();
  const blocks = useQuery({
    queryKey: ['cms_blocks', websiteId, 'picker'],
    enabled: opened,
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/cms_blocks', { params: { path: { website_id: websiteId }, query: { page_size: 100, order_by: 'title' } as never } })),
  });
  const [chosen, setChosen] = useState<string | null>(null);
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={onClose} title="Embed a block" returnFocus={false} onExitTransitionEnd={onClosed}>
      <Stack>
        <Text size="sm">The block shows where you place it, as it is in each view (its own changes follow everywhere it is embedded).</Text>
        <Select
          label="Block"
          placeholder={blocks.isLoading ? 'Loading blocks…' : 'Choose a block'}
          data={(blocks.data?.cms_blocks ?? []).map((bl) => ({ value: bl.identifier, label: `${bl.title} (${bl.identifier})` }))}
          value={chosen}
          onChange={setChosen}
          searchable
          nothingFoundMessage="No block matches"
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button disabled={!chosen} onClick={() => chosen && onPick(chosen)}>
            Embed
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
