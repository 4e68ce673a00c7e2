/**
 * The admin's one door to the server: the SDK's clients (openapi-fetch, typed from the committed
 * OpenAPI). Components never `fetch` our routes themselves.
 */
import { createSiteClient, createTenantClient, type SiteClient, type TenantClient } from '@siteplatform/sdk';

/** The admin is served by the platform process itself, so the API answers on the same origin. */
export const baseUrl = (): string => window.location.origin;

let anonymousTenant: TenantClient | undefined;
let site: SiteClient | undefined;

/** Tenant client without a token: sign-in, password reset, email confirmation, invitations. */
export const anonymousApi = (): TenantClient => (anonymousTenant ??= createTenantClient({ baseUrl: baseUrl() }));
/** Client of the sign-up surface (`/site-api/v1`). */
export const signupApi = (): SiteClient => (site ??= createSiteClient({ baseUrl: baseUrl() }));

export { ApiError, data, paginate, waitForOperation, readModifyWrite } from '@siteplatform/sdk';
export type { Schemas, SiteSchemas, SignedInClient, TenantClient } from '@siteplatform/sdk';
