/** Links and navigation between generated screens (routes `/w/$websiteId/g/$`, `/a/$accountId/g/$`). */
import type { ReactNode } from 'react';
import { useNavigate } from '@tanstack/react-router';
import { AnchorLink } from '../lib/layout/links';
import type { Context } from './placement';

const target = (ctx: Context, splat: string) =>
  ctx.kind === 'website'
    ? ({ to: '/w/$websiteId/g/$', params: { websiteId: ctx.websiteId, _splat: splat } } as const)
    : ({ to: '/a/$accountId/g/$', params: { accountId: ctx.accountId, _splat: splat } } as const);

export function ScreenLink({ ctx, splat, children, ...rest }: { ctx: Context; splat: string; children: ReactNode; 'aria-label'?: string }) {
  const t = target(ctx, splat);
  return t.to === '/w/$websiteId/g/$' ? (
    <AnchorLink to={t.to} params={t.params} {...rest}>
      {children}
    </AnchorLink>
  ) : (
    <AnchorLink to={t.to} params={t.params as { accountId: string; _splat: string }} {...rest}>
      {children}
    </AnchorLink>
  );
}

/** Navigates to a generated screen (optionally with list search params). */
export function useGoToScreen() {
  const navigate = useNavigate();
  return (ctx: Context, splat: string, search?: Record<string, unknown>) =>
    navigate({ ...(target(ctx, splat) as { to: '/w/$websiteId/g/$'; params: { websiteId: string; _splat: string } }), search: (search ?? {}) as never });
}
