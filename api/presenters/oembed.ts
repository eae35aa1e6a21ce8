// An oEmbed object as XML, as the oembed/1.0 routes answer it with format=xml: WordPress's
// `<?xml version="1.0"?><oembed>…</oembed>` (_oembed_create_xml), each field an element, its text escaped.
import { XMLBuilder } from 'fast-xml-parser';
import type { OEmbedData } from '../../shared/core/embeds/index.js';

const builder = new XMLBuilder({ format: false, processEntities: true });

export const OEMBED_XML_TYPE = 'text/xml; charset=UTF-8';

export function oembedXml(data: OEmbedData): string {
  return `<?xml version="1.0"?>\n${builder.build({ oembed: data })}\n`;
}
