// An oEmbed object as the oembed/1.0 routes answer it: JSON, or with format=xml WordPress's
// `<?xml version="1.0"?><oembed>…</oembed>` (_oembed_create_xml) as text/xml.
import { Readable } from 'node:stream';
import { XMLBuilder } from 'fast-xml-parser';
import { StreamedBody, type Reply } from '../http/dashboard/route.js';
import type { OEmbedData, OEmbedFormat } from '../../shared/core/embeds/index.js';

const builder = new XMLBuilder({ format: false, processEntities: true });

export function oembedXml(data: OEmbedData): string {
  return `<?xml version="1.0"?>\n${builder.build({ oembed: data }) as string}\n`;
}

export function oembedReply(data: OEmbedData, format: OEmbedFormat): Reply {
  if (format === 'json') return { body: data };
  const xml = oembedXml(data);
  return { body: new StreamedBody('text/xml; charset=UTF-8', () => Readable.from([xml])) };
}
