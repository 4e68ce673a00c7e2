/** The route components of the blog (./routes.tsx); categories are the blog-categories area's. */
import { useParams, useSearch } from '@tanstack/react-router';
import { PostsList } from './PostsList';
import { PostEditor, type PostSearch } from './PostEditor';
import { TaxonomyScreen } from './TaxonomyScreen';
import type { PostListSearch } from './post-list-search';

const useIds = () => useParams({ strict: false }) as { websiteId: string; postId?: string };

export function PostsListScreen() {
  return <PostsList websiteId={useIds().websiteId} search={useSearch({ strict: false }) as PostListSearch} />;
}

export function PostEditorScreen() {
  const { websiteId, postId } = useIds();
  return <PostEditor key={postId} websiteId={websiteId} id={postId!} search={useSearch({ strict: false }) as PostSearch} />;
}

export function TagsScreen() {
  return <TaxonomyScreen kind="blog_tags" websiteId={useIds().websiteId} />;
}

export function AuthorsScreen() {
  return <TaxonomyScreen kind="blog_authors" websiteId={useIds().websiteId} />;
}
