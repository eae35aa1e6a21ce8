// The embeds' use cases (oEmbed, url-details) and the port the site's own content answers through.
export { OEmbeds, type OEmbedData, type ProxyArgs, type EmbedArgs, type Site } from './oembed.js';
export { UrlDetails, type UrlDetailsRefusal } from './url-details.js';
export { NO_LOCAL_EMBEDS, type LocalEmbed, type LocalEmbeds } from './local-embeds.js';
export type { OEmbedFormat, PageDetails } from './page-head.js';
