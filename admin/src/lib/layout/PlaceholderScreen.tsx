import { Text, Title } from '@mantine/core';
import { useParams } from '@tanstack/react-router';
import { usePageTitle } from './title';

/** Stands in for the generated resource screens until they are registered (resource-routes.tsx). */
export function PlaceholderScreen() {
  const { _splat } = useParams({ strict: false });
  usePageTitle(_splat);
  return (
    <>
      <Title order={1}>{_splat}</Title>
      <Text mt="md">This screen is on its way.</Text>
    </>
  );
}
