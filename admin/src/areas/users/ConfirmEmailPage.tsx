import { PublicPage } from '../../lib/layout/PublicPage';

export function ConfirmEmailPage() {
  return <PublicPage title="ConfirmEmailPage">Coming next.</PublicPage>;
}
