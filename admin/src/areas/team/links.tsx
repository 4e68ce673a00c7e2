/** Mantine's Button as a typed router link (a link that looks like a button: "New role"). */
import { forwardRef } from 'react';
import { Button, type ButtonProps } from '@mantine/core';
import { createLink, type LinkComponent } from '@tanstack/react-router';

type ButtonAnchorProps = ButtonProps & Omit<React.ComponentPropsWithoutRef<'a'>, keyof ButtonProps>;
const MantineButtonAnchor = forwardRef<HTMLAnchorElement, ButtonAnchorProps>((props, ref) => <Button component="a" ref={ref} {...props} />);
const CreatedButtonLink = createLink(MantineButtonAnchor);
export const ButtonLink: LinkComponent<typeof MantineButtonAnchor> = (props) => <CreatedButtonLink preload="intent" {...props} />;
