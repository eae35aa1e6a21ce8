// Where the links in mail the API sends lead (invitations, from the dashboard's routes and the Team pages alike).
import type { AppContext } from '../pipeline/context.js';
import type { Incoming } from '../pipeline/pipeline.js';

/** Where links in mail lead: the configured dashboard URL, else the origin this request was addressed to. */
export const dashboardUrlOf = (ctx: AppContext, request: Pick<Incoming, 'origin'>): string =>
  ctx.config.dashboard.publicUrl === null ? request.origin : new URL(ctx.config.dashboard.publicUrl).origin;

/** Where a provider sends the browser back after a sign-in (api/web/social-sign-in.ts serves it; operators register it). */
export const socialCallbackPath = (provider: string): string => `/sign-in/callback/${provider}`;
