/** Mantine's Anchor and NavLink as typed router links (TanStack Router's `createLink`). */
import { forwardRef } from 'react';
import { Anchor, NavLink, type AnchorProps, type NavLinkProps } from '@mantine/core';
import { createLink, type LinkComponent } from '@tanstack/react-router';

type AnchorElementProps = Omit<AnchorProps, 'href'> & Omit<React.ComponentPropsWithoutRef<'a'>, keyof AnchorProps>;
const MantineAnchor = forwardRef<HTMLAnchorElement, AnchorElementProps>((props, ref) => <Anchor component="a" ref={ref} {...props} />);
const CreatedAnchor = createLink(MantineAnchor);
export const AnchorLink: LinkComponent<typeof MantineAnchor> = (props) => <CreatedAnchor preload="intent" {...props} />;

type NavLinkElementProps = Omit<NavLinkProps, 'href'> & Omit<React.ComponentPropsWithoutRef<'a'>, keyof NavLinkProps>;
const MantineNavLink = forwardRef<HTMLAnchorElement, NavLinkElementProps>((props, ref) => <NavLink component="a" ref={ref} {...props} />);
const CreatedNavLink = createLink(MantineNavLink);
export const NavLinkLink: LinkComponent<typeof MantineNavLink> = (props) => <CreatedNavLink preload="intent" {...props} />;
