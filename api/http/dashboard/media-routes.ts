// The content namespace's media (wp/v2/media, WordPress's attachments controller): the collection (GET: the
// files the caller may see, paged with WordPress's headers; POST: an upload, multipart in the field `file` or the
// raw body with Content-Type and Content-Disposition), an item (GET, POST/PUT/PATCH its fields, DELETE with
// force=true only: media has no trash), /post-process (create-image-subsizes: Tern keeps no sub-sizes, so the file
// as it is) and /edit (refused: Tern carries no image library). Signed-in users only: anonymous callers read
// nothing here (the files stay reachable at their source_url). The rules are core/media.ts's; this file translates.
import { Type } from '@sinclair/typebox';
import contentDisposition from 'content-disposition';
import escapeHtml from 'escape-html';
import { DIGITS, endpoint, type DashboardRoute, type Reply } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { signedInUser } from './authentication.js';
import { readOneFile, readRawBody, uploadError } from './upload.js';
import { apiUrl, contextArg, forContext, listArgs, window, wpPage, type ItemSchema, type RestContext, type WpLinks } from './wp-collection.js';
import { oneOf } from './collection.js';
import type { Incoming } from '../../pipeline/pipeline.js';
import { dashboardError, forbidden, MESSAGES, notAllowed, type DashboardError } from '../../pipeline/dashboard-errors.js';
import type { MediaParty, MediaRefusal, MediaResult } from '../../../shared/core/media.js';
import {
  MEDIA_LIST_STATUSES,
  MEDIA_ORDERS,
  MEDIA_STATUSES,
  mediaPath,
  mediaTypeOf,
  type Media,
  type MediaChange,
  type MediaOrder,
} from '../../../shared/domain/media.js';

type Route = DashboardRoute<DashboardCaller>;
const NAMESPACE = 'wp/v2';
const BASE = '/media';
const FILE_FIELD = 'file';

const partyOf = (caller: DashboardCaller | undefined): MediaParty => {
  const c = signedInUser(caller);
  return { userId: c.user.id, role: c.user.role, teamId: c.kind === 'account' ? c.acting.id : null };
};

const REFUSED_ACTION = {
  create: ['rest_cannot_create', 'Sorry, you are not allowed to upload media on this site.'],
  edit: ['rest_cannot_edit', 'Sorry, you are not allowed to edit this post.'],
  delete: ['rest_cannot_delete', 'Sorry, you are not allowed to delete this post.'],
  edit_context: ['rest_forbidden_context', MESSAGES.rest_forbidden_context],
  status: ['rest_forbidden_status', MESSAGES.rest_forbidden_status],
} as const;

/** A refusal of the media library in WordPress's words. */
function errorOf(r: MediaRefusal): DashboardError {
  switch (r.kind) {
    case 'not_found':
      return dashboardError('rest_post_invalid_id', MESSAGES.rest_post_invalid_id);
    case 'may_not':
      if (r.action === 'read') return forbidden(false);
      return notAllowed(REFUSED_ACTION[r.action][0], REFUSED_ACTION[r.action][1], false);
    case 'empty':
      return uploadError({ kind: 'no_file' });
    case 'too_big':
      return uploadError({ kind: 'too_large', limit: r.limit });
    case 'wrong_type':
      return dashboardError('rest_upload_sideload_error', r.message);
    case 'hash_mismatch':
      return dashboardError('rest_upload_hash_mismatch', MESSAGES.rest_upload_hash_mismatch);
    case 'not_an_image':
      return dashboardError('rest_cannot_edit_file_type', MESSAGES.rest_cannot_edit_file_type);
    case 'editing_unsupported':
      return dashboardError(
        'tern_image_editing_unsupported',
        'Tern keeps images as they were uploaded and cannot flip, rotate or crop them; upload the edited image instead.',
      );
  }
}

const valueOf = <T>(result: MediaResult<T>): T => {
  if (!result.ok) throw errorOf(result.refusal);
  return result.value;
};

// WordPress's attachment schema: the contexts each field is shown in.
const ALL: readonly RestContext[] = ['view', 'edit', 'embed'];
const VIEW_EDIT: readonly RestContext[] = ['view', 'edit'];
const EDIT: readonly RestContext[] = ['edit'];
const SCHEMA: ItemSchema = {
  date: { context: ALL },
  date_gmt: { context: VIEW_EDIT },
  guid: { context: VIEW_EDIT, properties: { rendered: { context: VIEW_EDIT }, raw: { context: EDIT } } },
  id: { context: ALL },
  link: { context: ALL },
  modified: { context: VIEW_EDIT },
  modified_gmt: { context: VIEW_EDIT },
  slug: { context: ALL },
  status: { context: VIEW_EDIT },
  type: { context: ALL },
  title: { context: ALL, properties: { raw: { context: EDIT }, rendered: { context: ALL } } },
  author: { context: ALL },
  comment_status: { context: VIEW_EDIT },
  ping_status: { context: VIEW_EDIT },
  meta: { context: VIEW_EDIT },
  template: { context: VIEW_EDIT },
  alt_text: { context: ALL },
  caption: { context: ALL, properties: { raw: { context: EDIT }, rendered: { context: ALL } } },
  description: { context: VIEW_EDIT, properties: { raw: { context: EDIT }, rendered: { context: VIEW_EDIT } } },
  media_type: { context: ALL },
  mime_type: { context: ALL },
  media_details: { context: ALL },
  post: { context: VIEW_EDIT },
  source_url: { context: ALL },
  missing_image_sizes: { context: EDIT },
};

/** WordPress's dates: the site's (Tern's is UTC) and GMT, both without a zone. */
const wpDate = (iso: string): string => iso.slice(0, 19);
/** Text shown as HTML: escaped, a paragraph as wpautop makes it (none for empty text). */
const paragraph = (text: string): string => (text === '' ? '' : `<p>${escapeHtml(text)}</p>\n`);

function mediaDetails(m: Media): Record<string, unknown> {
  if (mediaTypeOf(m.mimeType) !== 'image') return { filesize: m.size };
  return { width: m.width, height: m.height, file: m.fileName, filesize: m.size, sizes: {}, image_meta: {} };
}

function linksOf(req: Pick<Incoming, 'origin'>, m: Media): WpLinks {
  const links: WpLinks = {
    self: [{ href: apiUrl(req, `/wp/v2/media/${m.id}`) }],
    collection: [{ href: apiUrl(req, '/wp/v2/media') }],
    about: [{ href: apiUrl(req, '/wp/v2/types/attachment') }],
  };
  if (m.authorId !== null) links.author = [{ embeddable: true, href: apiUrl(req, `/wp/v2/users/${m.authorId}`) }];
  return links;
}

/** A file as WordPress shows an attachment, in a context. */
export function mediaView(req: Pick<Incoming, 'origin'>, m: Media, context: RestContext): Record<string, unknown> {
  const url = `${req.origin}${mediaPath(m)}`;
  const item = {
    id: m.id,
    date: wpDate(m.date),
    date_gmt: wpDate(m.date),
    guid: { rendered: url, raw: url },
    link: url,
    modified: wpDate(m.modified),
    modified_gmt: wpDate(m.modified),
    slug: m.slug,
    status: m.status,
    type: 'attachment',
    title: { raw: m.title, rendered: escapeHtml(m.title) },
    author: m.authorId ?? 0,
    comment_status: 'closed',
    ping_status: 'closed',
    meta: {},
    template: '',
    alt_text: m.altText,
    caption: { raw: m.caption, rendered: paragraph(m.caption) },
    description: { raw: m.description, rendered: paragraph(m.description) },
    media_type: mediaTypeOf(m.mimeType),
    mime_type: m.mimeType,
    media_details: mediaDetails(m),
    post: null,
    source_url: url,
    missing_image_sizes: [],
    _links: linksOf(req, m),
  };
  return forContext(SCHEMA, item, context);
}

// The fields a change may set (WordPress takes title, caption and description as text or as {raw}).
const text = (description: string) => Type.Optional(Type.String({ description, maxLength: 65_535 }));
const rawOr = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 65_535 }), Type.Object({ raw: Type.Optional(Type.String({ maxLength: 65_535 })) })], { description }));
const fieldArgs = {
  title: rawOr('The title for the attachment (text, or {raw}).'),
  caption: rawOr('The attachment caption (text, or {raw}).'),
  description: rawOr('The attachment description (text, or {raw}).'),
  alt_text: text('Alternative text to display when attachment is not displayed.'),
  slug: Type.Optional(Type.String({ description: 'An alphanumeric identifier for the attachment unique to its type.', maxLength: 200 })),
  status: Type.Optional(oneOf(MEDIA_STATUSES, { description: 'A named status for the attachment.' })),
};

type Raw = string | { raw?: string } | undefined;
const rawOf = (value: Raw): string | undefined => (typeof value === 'object' ? value.raw : value);

function changeOf(p: { title?: Raw; caption?: Raw; description?: Raw; alt_text?: string; slug?: string; status?: (typeof MEDIA_STATUSES)[number] }): MediaChange {
  const change: MediaChange = {
    title: rawOf(p.title),
    caption: rawOf(p.caption),
    description: rawOf(p.description),
    altText: p.alt_text,
    slug: p.slug,
    status: p.status,
  };
  return Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
}

const header = (req: Incoming, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** WordPress's get_filename_from_disposition: the filename of a Content-Disposition, or undefined. */
function fileNameOf(disposition: string | undefined): string | undefined {
  if (!disposition) return undefined;
  try {
    const name = contentDisposition.parse(disposition).parameters.filename;
    return name && name.trim() !== '' ? name : undefined;
  } catch {
    return undefined;
  }
}

/** The uploaded file: a multipart body's `file` part, or the raw body named by its Content-Disposition. */
async function uploadedFile(req: Incoming, limit: number): Promise<{ fileName: string; content: Buffer }> {
  const type = header(req, 'content-type');
  if (type?.toLowerCase().startsWith('multipart/form-data')) {
    const read = await readOneFile(req.stream, req.headers, FILE_FIELD, limit);
    if (!read.ok) throw uploadError(read.problem);
    return { fileName: read.fileName, content: read.content };
  }
  if (!type) throw dashboardError('rest_upload_no_content_type', MESSAGES.rest_upload_no_content_type);
  const fileName = fileNameOf(header(req, 'content-disposition'));
  if (!fileName) throw dashboardError('rest_upload_no_content_disposition', MESSAGES.rest_upload_no_content_disposition);
  const read = await readRawBody(req.stream, req.headers, limit);
  if (!read.ok) throw uploadError(read.problem);
  return { fileName, content: read.content };
}

const id = Type.Integer({ description: 'Unique identifier for the attachment.', minimum: 1 });

const itemReply = (req: Incoming, m: Media, status = 200, headers: Record<string, string> = {}): Reply => ({ status, headers, body: mediaView(req, m, 'edit') });

/** The values of listArgs(MEDIA_ORDERS, 'date'), as validated. */
interface ListParams {
  context: RestContext;
  page: number;
  per_page: number;
  search?: string;
  include: number[];
  exclude: number[];
  offset?: number;
  order: 'asc' | 'desc';
  orderby: MediaOrder;
  slug?: string[];
}

const collection: Route = {
  namespace: NAMESPACE,
  path: BASE,
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'self',
      summary: 'The media the caller may see (its team’s; every file for an operator), paged with X-WP-Total and X-WP-TotalPages',
      args: Type.Object({
        ...listArgs(MEDIA_ORDERS, 'date'),
        author: Type.Optional(Type.Array(Type.Integer(), { description: 'Limit result set to attachments assigned to specific authors.' })),
        status: Type.Array(oneOf(MEDIA_LIST_STATUSES), { description: 'Limit result set to attachments assigned one or more statuses.', default: ['inherit'] }),
        media_type: Type.Optional(oneOf(['image', 'file'] as const, { description: 'Limit result set to attachments of a particular media type.' })),
        mime_type: Type.Optional(Type.String({ description: 'Limit result set to attachments of a particular MIME type.', maxLength: 255 })),
      }),
      async handle({ ctx, user, params: given, request }) {
        // listArgs' properties are typed as TProperties (one helper for every collection): their values as declared there.
        const params = given as typeof given & ListParams;
        const { offset, limit } = window(params);
        const page = valueOf(
          await ctx.core.media.list(
            partyOf(user),
            {
              search: params.search,
              include: params.include,
              exclude: params.exclude,
              slugs: params.slug,
              authors: params.author,
              statuses: params.status,
              mediaType: params.media_type,
              mimeType: params.mime_type,
              sort: { by: params.orderby, order: params.order },
              offset,
              limit,
            },
            params.context === 'edit',
          ),
        );
        return wpPage(
          request,
          params,
          page.rows.map((m) => mediaView(request, m, params.context)),
          page.total,
          'refuse',
        );
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary:
        'Uploads a file: multipart/form-data with one file in the field `file`, or the raw body with Content-Type and Content-Disposition: attachment; filename=…; an optional Content-MD5 is checked. Its type is the one its content says, among the configured ones; its title is its name (set the fields after with POST /wp/v2/media/{id}) (owners, admins; operators: platform-wide)',
      args: Type.Object({}),
      streamedBody: {
        contentType: 'multipart/form-data',
        schema: Type.Object({ [FILE_FIELD]: Type.String({ format: 'binary', description: 'The file.' }) }, { required: [FILE_FIELD] }),
      },
      async handle({ ctx, user, request, log }) {
        const party = partyOf(user);
        valueOf(ctx.core.media.admits(party));
        const file = await uploadedFile(request, ctx.core.media.maxBytes);
        const md5 = header(request, 'content-md5');
        const media = valueOf(await ctx.core.media.upload(party, { ...file, ...(md5 === undefined ? {} : { md5 }) }, log));
        return itemReply(request, media, 201, { Location: apiUrl(request, `/wp/v2/media/${media.id}`) });
      },
    }),
  ],
};

const item: Route = {
  namespace: NAMESPACE,
  path: `${BASE}/{id}`,
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'self',
      summary: 'A file the caller may see, as an attachment (context=edit: its writers only)',
      args: Type.Object({ id, context: contextArg() }),
      async handle({ ctx, user, params, request }) {
        const media = valueOf(await ctx.core.media.get(partyOf(user), params.id, params.context === 'edit'));
        return { body: mediaView(request, media, params.context) };
      },
    }),
    endpoint({
      methods: ['POST', 'PUT', 'PATCH'],
      permission: 'self',
      summary: 'Changes a file’s title, caption, description, alt text, slug or status; the parts not sent stay (its writers, operators)',
      args: Type.Object({ id, ...fieldArgs }),
      async handle({ ctx, user, params, request, log }) {
        return itemReply(request, valueOf(await ctx.core.media.update(partyOf(user), params.id, changeOf(params), log)));
      },
    }),
    endpoint({
      methods: ['DELETE'],
      permission: 'self',
      summary: 'Deletes a file and its bytes for good; force=true is required (media has no trash) (its writers, operators)',
      args: Type.Object({ id, force: Type.Boolean({ description: 'Whether to bypass Trash and force deletion.', default: false }) }),
      async handle({ ctx, user, params, request, log }) {
        const party = partyOf(user);
        // As WordPress: may the caller delete it at all, before whether it can go to a trash.
        valueOf(await ctx.core.media.editable(party, params.id, 'delete'));
        if (!params.force) throw dashboardError('rest_trash_not_supported', MESSAGES.rest_trash_not_supported);
        const previous = valueOf(await ctx.core.media.remove(party, params.id, log));
        return { body: { deleted: true, previous: mediaView(request, previous, 'edit') } };
      },
    }),
  ],
};

const postProcess: Route = {
  namespace: NAMESPACE,
  path: `${BASE}/{id}/post-process`,
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary: 'WordPress’s step after an upload (create-image-subsizes); Tern keeps no sub-sizes, so it answers the file as it is',
      args: Type.Object({ id, action: oneOf(['create-image-subsizes'] as const, { description: 'The post-processing action to perform.' }) }),
      async handle({ ctx, user, params, request }) {
        return itemReply(request, valueOf(await ctx.core.media.editable(partyOf(user), params.id, 'edit')));
      },
    }),
  ],
};

// WordPress's modifiers: a type and its args (flip: {flip: {horizontal, vertical}}, rotate: {angle}, crop:
// {left, top, width, height}); Tern refuses every edit, so the args are taken as any object.
const modifier = Type.Object({
  type: oneOf(['flip', 'rotate', 'crop'] as const, { description: 'Image edit type.' }),
  args: Type.Object({}, { additionalProperties: true, description: 'The edit’s arguments.' }),
});

const edit: Route = {
  namespace: NAMESPACE,
  path: `${BASE}/{id}/edit`,
  vars: { id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary:
        'WordPress’s image editor (flip, rotate, crop): refused, 501 tern_image_editing_unsupported (Tern carries no image library); upload the edited image instead',
      args: Type.Object({
        id,
        src: Type.String({ format: 'uri', description: 'URL to the edited image file.' }),
        modifiers: Type.Array(modifier, { description: 'Array of image edits.', minItems: 1 }),
      }),
      async handle({ ctx, user, params, request }) {
        const media = valueOf(await ctx.core.media.editable(partyOf(user), params.id, 'edit'));
        // As WordPress: the src must be this attachment's file.
        if (params.src !== `${request.origin}${mediaPath(media)}`) throw dashboardError('rest_unknown_attachment', MESSAGES.rest_unknown_attachment);
        return valueOf(ctx.core.media.editImage(media));
      },
    }),
  ],
};

export const mediaRoutes: readonly Route[] = [collection, item, postProcess, edit];
