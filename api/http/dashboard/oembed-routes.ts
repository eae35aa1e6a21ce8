// oEmbed (oembed/1.0, WordPress's WP_oEmbed_Controller): GET /embed answers the embed of one of the site's own
// posts or pages to anyone; GET /proxy lets a user who may edit content embed any URL (the block editor's embed
// block), fetched by the safe-fetch rules and cached. The rules are core/embeds/oembed.ts's.
import { Type } from '@sinclair/typebox';
import { Readable } from 'node:stream';
import { endpoint, StreamedBody, type DashboardRoute, type EndpointInput, type Reply } from './route.js';
import { signedInUser, type DashboardCaller } from './authentication.js';
import { oneOf } from './collection.js';
import { SITE } from './site.js';
import { dashboardError } from '../../pipeline/dashboard-errors.js';
import { dashboardUrlOf } from '../../presenters/links.js';
import { OEMBED_XML_TYPE, oembedXml } from '../../presenters/oembed.js';
import type { AppContext } from '../../pipeline/context.js';
import type { OEmbedData, OEmbedFormat, Site } from '../../../shared/core/embeds/index.js';

type Route = DashboardRoute<DashboardCaller>;

const FORMATS = ['json', 'xml'] as const;
const url = Type.String({ description: 'The URL of the resource for which to fetch oEmbed data.', format: 'uri', minLength: 1 });
const format = oneOf(FORMATS, { description: 'The oEmbed format to use.', default: 'json' });
const maxwidth = Type.Integer({ description: 'The maximum width of the embed frame in pixels.', default: 600, minimum: 0 });

// WordPress answers get_status_header_desc(404) for a URL it cannot embed.
const invalidUrl = () => dashboardError('oembed_invalid_url', 'Not Found');

/** JSON, or with format=xml the object as text/xml (WordPress's _oembed_rest_pre_serve_request). */
function oembedReply(data: OEmbedData, format: OEmbedFormat): Reply {
  if (format === 'json') return { body: data };
  const xml = oembedXml(data);
  return { body: new StreamedBody(OEMBED_XML_TYPE, () => Readable.from([xml])) };
}

const siteOf = (ctx: AppContext, request: EndpointInput<unknown, unknown>['request']): Site => ({ name: SITE.name, url: dashboardUrlOf(ctx, request) });

const embed: Route = {
  namespace: 'oembed/1.0',
  path: '/embed',
  endpoints: [
    endpoint({
      methods: ['GET'],
      permission: 'public',
      summary: "The oEmbed data of one of the site's own posts or pages (json, or xml as text/xml)",
      args: Type.Object({ url, format, maxwidth }),
      async handle({ ctx, params, request }) {
        const data = await ctx.core.oembeds.embed({ url: params.url, maxwidth: params.maxwidth, site: siteOf(ctx, request) });
        if (!data) throw invalidUrl();
        return oembedReply(data, params.format);
      },
    }),
  ],
};

const proxy: Route = {
  namespace: 'oembed/1.0',
  path: '/proxy',
  endpoints: [
    endpoint({
      methods: ['GET'],
      // Any signed-in user reaches the handler; the core refuses those who may not edit content (edit_posts).
      permission: 'self',
      summary: "Any URL's oEmbed data, discovered from its page by the safe-fetch rules (private addresses refused) and cached a day",
      args: Type.Object({
        url,
        format,
        maxwidth,
        maxheight: Type.Optional(Type.Integer({ description: 'The maximum height of the embed frame in pixels.', minimum: 0 })),
        discover: Type.Boolean({ description: 'Whether to perform an oEmbed discovery request for unsanctioned providers.', default: true }),
      }),
      async handle({ ctx, user, params, request }) {
        const result = await ctx.core.oembeds.proxy(signedInUser(user).user, {
          url: params.url,
          format: params.format,
          maxwidth: params.maxwidth,
          ...(params.maxheight === undefined ? {} : { maxheight: params.maxheight }),
          discover: params.discover,
          site: siteOf(ctx, request),
        });
        if (result.ok) return oembedReply(result.value, params.format);
        if (result.refusal === 'forbidden') throw dashboardError('rest_forbidden', 'Sorry, you are not allowed to make proxied oEmbed requests.');
        throw invalidUrl();
      },
    }),
  ],
};

export const oembedRoutes: readonly Route[] = [embed, proxy];
