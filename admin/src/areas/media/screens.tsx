/** The route components of the media library (./routes.tsx). */
import { useParams, useSearch } from '@tanstack/react-router';
import { MediaLibrary, type LibrarySearch } from './MediaLibrary';

export function MediaLibraryScreen() {
  const { websiteId } = useParams({ strict: false }) as { websiteId: string };
  return <MediaLibrary websiteId={websiteId} search={useSearch({ strict: false }) as LibrarySearch} />;
}
