import { useEffect } from 'react';

/** Each screen names itself in the document title (screen readers announce it on navigation). */
export function usePageTitle(title: string | undefined) {
  useEffect(() => {
    if (title) document.title = `${title} · Site platform admin`;
  }, [title]);
}
