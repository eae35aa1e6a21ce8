// The sign-in page's branding (tern-auth/v1, FluentAuth's auth customizer): GET/POST /auth-customizer (the logo,
// the background and button colours, the message) and POST /upload-image (one image, multipart, in the field
// `file`, as the icon upload takes it). Operators only: the sign-in page is the platform's. The rules are
// core/branding.ts's; this file translates.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { operatorOf, type DashboardCaller } from './authentication.js';
import { valueOf } from '../../pipeline/refusal-errors.js';
import { sentAsNull } from './params.js';
import { readOneFile, uploadError } from './upload.js';
import type { BrandingView } from '../../../shared/core/branding.js';
import type { SignInBranding } from '../../../shared/domain/branding.js';

type Route = DashboardRoute<DashboardCaller>;
const NAMESPACE = 'tern-auth/v1';
const FILE_FIELD = 'file';

/** A path of this site as a URL on the origin the client addressed. */
const urlOf = (origin: string, path: string | null): string | null => (path === null ? null : `${origin}${path}`);

const brandingView = (v: BrandingView, origin: string) => ({
  logo_image_id: v.branding.logoImageId,
  logo_url: urlOf(origin, v.logoPath),
  background_color: v.branding.backgroundColor,
  button_color: v.branding.buttonColor,
  message: v.branding.message,
  updated_at: v.updatedAt,
});

const nullableText = (description: string, maxLength: number) => Type.Optional(Type.Union([Type.Null(), Type.String({ maxLength })], { description }));

const saveArgs = Type.Object({
  logo_image_id: nullableText('The id POST /upload-image answered (null: no logo).', 100),
  background_color: nullableText('The page’s background, as #rrggbb (null: Tern’s, light or dark as the system is).', 100),
  button_color: nullableText('The main button’s colour, as #rrggbb; its text is black or white, whichever reads better (null: Tern’s).', 100),
  message: Type.Optional(Type.String({ maxLength: 10_000, description: 'Plain text shown above the sign-in form (at most 500 characters; "" for none).' })),
});

const customizer: Route = {
  namespace: NAMESPACE,
  path: '/auth-customizer',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'operator',
      summary: 'The sign-in page’s branding: logo, background and button colours, message (operators)',
      args: Type.Object({}),
      async handle({ ctx, user, request }) {
        operatorOf(user);
        return { body: brandingView(await ctx.core.branding.get(), request.origin) };
      },
    }),
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary: 'Changes the sign-in page’s branding; the parts not sent stay, each part checked, nothing changes when one is wrong (operators; audited)',
      args: saveArgs,
      async handle({ ctx, user, params, request, log }) {
        const { user: operator } = operatorOf(user);
        // A null reads as not given (WordPress's rule); these fields take null for "none", so the body is asked.
        const orNull = (value: string | null | undefined, field: string) => value ?? (sentAsNull(request.body, field) ? null : undefined);
        const change: Partial<SignInBranding> = {
          logoImageId: orNull(params.logo_image_id, 'logo_image_id'),
          backgroundColor: orNull(params.background_color, 'background_color'),
          buttonColor: orNull(params.button_color, 'button_color'),
          message: params.message,
        };
        return { body: brandingView(valueOf(await ctx.core.branding.save(operator, change, log)), request.origin) };
      },
    }),
  ],
};

const uploadImage: Route = {
  namespace: NAMESPACE,
  path: '/upload-image',
  endpoints: [
    endpoint({
      methods: ['POST'],
      permission: 'operator',
      summary:
        'Uploads an image for the sign-in page (multipart/form-data, one file in the field `file`: PNG, JPEG or WebP by its content, within the configured size); send its id as logo_image_id (operators)',
      args: Type.Object({}),
      streamedBody: {
        contentType: 'multipart/form-data',
        schema: Type.Object({ [FILE_FIELD]: Type.String({ format: 'binary', description: 'The image: PNG, JPEG or WebP.' }) }, { required: [FILE_FIELD] }),
      },
      async handle({ ctx, user, request, log }) {
        const { user: operator } = operatorOf(user);
        const read = await readOneFile(request.stream, request.headers, FILE_FIELD, ctx.core.branding.maxBytes);
        if (!read.ok) throw uploadError(read.problem);
        const { image, path } = valueOf(await ctx.core.branding.upload(operator, read.content, log));
        const url = `${request.origin}${path}`;
        return { status: 201, headers: { Location: url }, body: { id: image.id, url, mime_type: image.contentType, filesize: image.content.length } };
      },
    }),
  ],
};

export const brandingRoutes: readonly Route[] = [customizer, uploadImage];
