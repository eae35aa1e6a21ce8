// Files of the support namespace: POST /ticket_file_upload (one file, multipart, in the field `file`, as the
// portal uploads it before sending the ticket or response that names it) and GET
// /tickets/{id}/attachments/{attachment_id} (the file, to those who may see the ticket only). The rules are
// core/support/attachments.ts's; this file translates.
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { DIGITS, endpoint, StreamedBody, type DashboardRoute } from './route.js';
import type { DashboardCaller } from './authentication.js';
import { readOneFile, uploadError } from './upload.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { attachmentView, partyOf, SUPPORT_NAMESPACE } from './support-routes.js';
import { dispositionOf } from '../../presenters/content-disposition.js';

type Route = DashboardRoute<DashboardCaller>;

const FILE_FIELD = 'file';

const upload: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/ticket_file_upload',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'self',
      summary:
        'Uploads a file for the next ticket or response (multipart/form-data, one file in the field `file`; its type by content, among GET /portal-config’s, within its size); send its id in `attachments`',
      args: Type.Object({}),
      streamedBody: {
        contentType: 'multipart/form-data',
        schema: Type.Object({ [FILE_FIELD]: Type.String({ format: 'binary', description: 'The file.' }) }, { required: [FILE_FIELD] }),
      },
      async handle({ ctx, user, request, log }) {
        const party = partyOf(user);
        valueOf(ctx.core.supportAttachments.admits(party));
        const read = await readOneFile(request.stream, request.headers, FILE_FIELD, ctx.core.supportAttachments.maxBytes);
        if (!read.ok) throw uploadError(read.problem);
        const attachment = valueOf(await ctx.core.supportAttachments.upload(party, read.fileName, read.content, log));
        return { status: 201, body: attachmentView(request.origin)(attachment) };
      },
    }),
  ],
};

const download: Route = {
  namespace: SUPPORT_NAMESPACE,
  path: '/tickets/{id}/attachments/{attachment_id}',
  vars: { id: DIGITS, attachment_id: DIGITS },
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'self',
      summary: "A ticket's attached file, as a download (the ticket's team's users and operators only)",
      args: Type.Object({
        id: Type.Integer({ description: 'The ticket’s id.', minimum: 1 }),
        attachment_id: Type.Integer({ description: 'The attachment’s id.', minimum: 1 }),
      }),
      async handle({ ctx, user, params }) {
        const { attachment, content } = valueOf(await ctx.core.supportAttachments.download(partyOf(user), params.id, params.attachment_id));
        return {
          body: new StreamedBody(attachment.contentType, () => Readable.from([content])),
          // A file a user sent is never run in the dashboard's origin: downloaded, and sandboxed if opened.
          headers: { 'Content-Disposition': dispositionOf(attachment.fileName), 'Content-Length': String(content.length), 'Content-Security-Policy': 'sandbox' },
        };
      },
    }),
  ],
};

export const supportFileRoutes: readonly Route[] = [upload, download];
