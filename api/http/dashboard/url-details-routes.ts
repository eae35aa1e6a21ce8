// The block editor's url-details (wp-block-editor/v1, WordPress's WP_REST_URL_Details_Controller): the title, icon,
// description and image of a page an editor links to, for users who may edit content. The rules (the safe-fetch
// rules of the oEmbed proxy, the cache) are core/embeds/url-details.ts's.
import { Type } from '@sinclair/typebox';
import { endpoint, type DashboardRoute } from './route.js';
import { signedInUser, type DashboardCaller } from './authentication.js';
import { dashboardError } from '../../pipeline/dashboard-errors.js';
import { invalidParam } from '../../pipeline/refusal-errors.js';
import type { UrlDetailsRefusal } from '../../../shared/core/embeds/index.js';

type Route = DashboardRoute<DashboardCaller>;

function errorOf(refusal: UrlDetailsRefusal) {
  switch (refusal.kind) {
    case 'forbidden':
      return dashboardError('rest_forbidden', 'Sorry, you are not allowed to process remote URLs.');
    case 'invalid_url':
      return invalidParam('url', 'rest_invalid_param', refusal.message);
    case 'no_response':
      return dashboardError('no_response', refusal.message);
    case 'no_content':
      return dashboardError('no_content', 'Unable to retrieve body from response at this URL.');
  }
}

const urlDetails: Route = {
  namespace: 'wp-block-editor/v1',
  path: '/url-details',
  endpoints: [
    endpoint({
      methods: ['GET'],
      // Any signed-in user reaches the handler; the core refuses those who may not edit content (edit_posts).
      permission: 'self',
      summary: "A page's title, icon, description and image, read from its head by the safe-fetch rules (private addresses refused)",
      args: Type.Object({ url: Type.String({ description: 'The URL to process.', format: 'uri', minLength: 1 }) }),
      async handle({ ctx, user, params }) {
        const result = await ctx.core.urlDetails.details(signedInUser(user).user, params.url);
        if (!result.ok) throw errorOf(result.refusal);
        return { body: result.value };
      },
    }),
  ],
};

export const urlDetailsRoutes: readonly Route[] = [urlDetails];
