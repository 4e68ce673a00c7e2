import { Button, Menu } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { data } from '@siteplatform/sdk';
import { session, useApi } from '../session';
import { errorMessage } from '../errors';

export function UserMenu() {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  const leave = async () => {
    queryClient.clear();
    await navigate({ to: '/sign-in', replace: true });
    session.signOut();
  };

  const signOutEverywhere = async () => {
    try {
      await data(api.POST('/tenant-api/v1/users:sign_out_everywhere', {}));
    } catch (err) {
      notifications.show({ color: 'red', title: 'Could not sign out everywhere', message: errorMessage(err) });
      return;
    }
    await leave();
  };

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default">Your account</Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => void navigate({ to: '/me' })}>Profile and security</Menu.Item>
        <Menu.Item onClick={() => void navigate({ to: '/websites' })}>All websites</Menu.Item>
        <Menu.Divider />
        <Menu.Item onClick={() => void leave()}>Sign out</Menu.Item>
        <Menu.Item onClick={() => void signOutEverywhere()}>Sign out everywhere</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
