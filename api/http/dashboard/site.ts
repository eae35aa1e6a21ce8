// What GET /api says of the site, and the name oEmbed answers give as their provider.
import type { Site } from './index-document.js';

export const SITE: Site = { name: 'Tern', description: 'The dashboard REST interface of Tern, a mail transfer agent' };
