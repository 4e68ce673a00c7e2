import { PublicPage } from '../../lib/layout/PublicPage';

export function HandoffPage() {
  return <PublicPage title="HandoffPage">Coming next.</PublicPage>;
}
