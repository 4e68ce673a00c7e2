import { PublicPage } from '../../lib/layout/PublicPage';

export function ForgotPasswordPage() {
  return <PublicPage title="ForgotPasswordPage">Coming next.</PublicPage>;
}
