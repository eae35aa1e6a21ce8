// The mailer's account settings: GET/POST /api/account (name, default region, time zone, icon URL, with the
// /v2 account facts), POST /api/icon-upload (one image, multipart, as WordPress's media upload takes it) and
// GET /icons/{icon_id} (an uploaded icon, public, cached for good: its id changes with its content). The
// rules are the core's (core/teams.ts, core/team-icons.ts); this file translates.
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { Team, TeamIcon } from '../../../shared/domain/team.js';
import type { IconRefusal } from '../../../shared/core/team-icons.js';
import type { AppContext } from '../../pipeline/context.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import { endpoint, IDENTIFIER, StreamedBody, type DashboardRoute } from './route.js';
import { signedIn, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { dashboardError, MESSAGES, type DashboardError } from '../../pipeline/dashboard-errors.js';
import { restUrl } from './index-document.js';
import { readOneFile, uploadError } from './upload.js';
import { accountItem } from '../admin/teams.js';
import { sentAsNull } from './params.js';

type Route = DashboardRoute<DashboardCaller>;

/** The form field the file is sent in, as WordPress's POST /wp/v2/media. */
const FILE_FIELD = 'file';
const ICON_PATH = '/tern/v2/icons/';
/** An uploaded icon never changes under its id: a year, and never revalidated. */
const ICON_CACHE = 'public, max-age=31536000, immutable';

/** Where an uploaded icon is served, on the origin the client addressed. */
const iconUrl = (origin: string, id: string): string => restUrl(origin, `${ICON_PATH}${id}`);

function iconUrlOf(icon: TeamIcon | null, origin: string): string | null {
  if (icon === null) return null;
  return icon.kind === 'url' ? icon.url : iconUrl(origin, icon.id);
}

/** The account as the dashboard shows it: the /v2 account facts, then its settings. */
async function accountView(ctx: AppContext, team: Team, origin: string) {
  const { balance } = await ctx.core.teams.overview(team);
  return { ...accountItem(team, balance), default_region: team.backendRegion, time_zone: team.timeZone, icon_url: iconUrlOf(team.icon, origin) };
}

/**
 * icon_url as the core takes it: null for none, the URL of an icon served here (on the origin addressed) as
 * that icon, anything else as a URL elsewhere (the core wants it https). Undefined when not sent.
 */
function iconOf(request: Incoming, sent: string | undefined): TeamIcon | null | undefined {
  if (sent === undefined) return sentAsNull(request.body, 'icon_url') ? null : undefined;
  const prefix = iconUrl(request.origin, '');
  const id = sent.startsWith(prefix) ? sent.slice(prefix.length) : undefined;
  return id !== undefined && new RegExp(`^${IDENTIFIER}$`).test(id) ? { kind: 'uploaded', id } : { kind: 'url', url: sent };
}

const account: Route = {
  namespace: 'tern/v2',
  path: '/api/account',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'read',
      summary: 'The account acted on: its /v2 facts (id, name, status, pooled credit balance), default region, time zone and icon URL',
      args: Type.Object({}),
      handle: async ({ ctx, user, request }) => ({ body: await accountView(ctx, signedIn(user).acting, request.origin) }),
    }),
    endpoint({
      methods: ['POST'],
      permission: 'write',
      summary: "Changes the account's name, default region, time zone or icon URL (an owner or admin); a refused field changes nothing",
      args: Type.Object({
        name: Type.Optional(Type.String({ description: 'The name of the account.', minLength: 2, maxLength: 100 })),
        default_region: Type.Optional(Type.String({ description: 'The region new teams and sends use: one of the configured regions.', minLength: 1, maxLength: 32 })),
        time_zone: Type.Optional(Type.String({ description: 'An IANA time zone name, such as Europe/Paris.', minLength: 1, maxLength: 64 })),
        icon_url: Type.Optional(
          Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()], {
            description: 'An https URL of an image, the URL of an icon uploaded here, or null for none.',
          }),
        ),
      }),
      async handle({ ctx, user, params, request, log }) {
        const acting = signedIn(user).acting;
        const change = { name: params.name, defaultRegion: params.default_region, timeZone: params.time_zone, icon: iconOf(request, params.icon_url ?? undefined) };
        const updated = valueOf(await ctx.core.teams.updateSettings(acting, change, log));
        return { body: await accountView(ctx, updated, request.origin) };
      },
    }),
  ],
};

/** A refusal of the core's icon upload, in WordPress's words. */
function iconRefusal(refusal: IconRefusal): DashboardError {
  switch (refusal.kind) {
    case 'empty':
      return uploadError({ kind: 'no_file', detail: 'the file is empty' });
    case 'too_large':
      return uploadError({ kind: 'too_large', limit: refusal.limit });
    case 'unsupported_type':
      return dashboardError('rest_upload_sideload_error', `${MESSAGES.rest_upload_sideload_error} An icon must be a PNG, JPEG or WebP image.`, {
        detected_type: refusal.found ?? null,
      });
    case 'not_found':
      return dashboardError('rest_team_invalid_id', 'Team not found');
  }
}

const iconUpload: Route = {
  namespace: 'tern/v2',
  path: '/api/icon-upload',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'write',
      summary: "Uploads the account's icon (multipart/form-data, one file in the field `file`: PNG, JPEG or WebP by content, at most 1 MB) and makes it the icon",
      args: Type.Object({}),
      streamedBody: {
        contentType: 'multipart/form-data',
        schema: Type.Object({ [FILE_FIELD]: Type.String({ format: 'binary', description: 'The image: PNG, JPEG or WebP, at most 1 MB.' }) }, { required: [FILE_FIELD] }),
      },
      async handle({ ctx, user, request, log }) {
        const acting = signedIn(user).acting;
        const read = await readOneFile(request.stream, request.headers, FILE_FIELD, ctx.core.teamIcons.maxBytes);
        if (!read.ok) throw uploadError(read.problem);
        const uploaded = await ctx.core.teamIcons.upload(acting, read.content, log);
        if (!uploaded.ok) throw iconRefusal(uploaded.refusal);
        const sourceUrl = iconUrl(request.origin, uploaded.icon.id);
        const body = { id: uploaded.icon.id, source_url: sourceUrl, mime_type: uploaded.icon.contentType, filesize: read.content.length };
        return { status: 201, headers: { Location: sourceUrl }, body: { ...body, account: await accountView(ctx, uploaded.team, request.origin) } };
      },
    }),
  ],
};

const icon: Route = {
  namespace: 'tern/v2',
  path: '/icons/{icon_id}',
  vars: { icon_id: IDENTIFIER },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'public',
      summary: 'An uploaded account icon (public), with its image type; cached for good, as its id changes with its content',
      args: Type.Object({ icon_id: Type.String({ pattern: `^${IDENTIFIER}$` }) }),
      async handle({ ctx, params }) {
        const stored = await ctx.core.teamIcons.get(params.icon_id);
        if (!stored) throw dashboardError('rest_icon_invalid_id', 'Icon not found');
        return {
          body: new StreamedBody(stored.contentType, () => Readable.from([stored.content])),
          headers: { 'Cache-Control': ICON_CACHE, 'Content-Length': String(stored.content.length) },
        };
      },
    }),
  ],
};

export const accountRoutes: readonly Route[] = [account, iconUpload, icon];
