import { PublicPage } from '../../lib/layout/PublicPage';

export function AcceptInvitationPage() {
  return <PublicPage title="AcceptInvitationPage">Coming next.</PublicPage>;
}
