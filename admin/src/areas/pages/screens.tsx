/** The route components of pages and blocks (loaded with their routes, ./routes.tsx). */
import { useParams, useSearch } from '@tanstack/react-router';
import { ContentList, type ListSearch } from './ContentList';
import { ContentEditor, type EditorSearch } from './ContentEditor';
import { BLOCK_KIND, PAGE_KIND } from './editor/kinds';

const useIds = () => useParams({ strict: false }) as { websiteId: string; pageId?: string; blockId?: string };

export function PagesListScreen() {
  const { websiteId } = useIds();
  return <ContentList kind={PAGE_KIND} websiteId={websiteId} search={useSearch({ strict: false }) as ListSearch} />;
}

export function BlocksListScreen() {
  const { websiteId } = useIds();
  return <ContentList kind={BLOCK_KIND} websiteId={websiteId} search={useSearch({ strict: false }) as ListSearch} />;
}

export function PageEditorScreen() {
  const { websiteId, pageId } = useIds();
  return <ContentEditor key={pageId} kind={PAGE_KIND} websiteId={websiteId} id={pageId!} search={useSearch({ strict: false }) as EditorSearch} />;
}

export function BlockEditorScreen() {
  const { websiteId, blockId } = useIds();
  return <ContentEditor key={blockId} kind={BLOCK_KIND} websiteId={websiteId} id={blockId!} search={useSearch({ strict: false }) as EditorSearch} />;
}
