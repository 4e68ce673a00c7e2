import { PublicPage } from '../../lib/layout/PublicPage';

export function ResetPasswordPage() {
  return <PublicPage title="ResetPasswordPage">Coming next.</PublicPage>;
}
