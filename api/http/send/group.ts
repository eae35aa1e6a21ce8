// The sending route group: sending-key authentication, the sending error shape, a send body limit of its
// own, and Idempotency-Key around every handler.
import type { RouteGroup } from '../../pipeline/pipeline.js';
import type { GroupRoute } from '../../pipeline/route.js';
import { sendingKeyAuth, type Sender } from './auth.js';
import { sendErrors } from './error-mapper.js';
import { idempotent } from './idempotency.js';
import { sendRoutes } from './routes.js';

export const sendingGroup: RouteGroup<Sender, GroupRoute<Sender>> = {
  bodyLimit: (config) => config.api.sendBodyLimitBytes,
  auth: sendingKeyAuth,
  errors: sendErrors,
  checks: [],
  around: idempotent,
  routes: sendRoutes,
};
