import { PublicPage } from '../../lib/layout/PublicPage';

export function SignUpPage() {
  return <PublicPage title="SignUpPage">Coming next.</PublicPage>;
}
