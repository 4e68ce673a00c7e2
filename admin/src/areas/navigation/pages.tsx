import { useParams } from '@tanstack/react-router';
import { NavigationScreen } from './NavigationScreen';

export function NavigationPage() {
  return <NavigationScreen />;
}

export function NavigationMenuPage() {
  const { navigationMenuId } = useParams({ from: '/signed-in/w/$websiteId/r/navigation_menus/$navigationMenuId' });
  return <NavigationScreen menuId={navigationMenuId} />;
}
