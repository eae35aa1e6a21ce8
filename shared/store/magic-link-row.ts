// A used magic link's row as both engines return it: its user's id.
import { Type } from '@sinclair/typebox';
import { Int, rowDecoder } from './decode.js';

export const decodeLinkUser = rowDecoder('magic link', Type.Object({ user_id: Int }), (r) => r.user_id);
