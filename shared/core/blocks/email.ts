// A mail whose body is written in blocks: the blocks rendered (render.ts) inside the email layout, written as
// tables with inline styles (no stylesheet: many clients drop <style>, none loads an external one), and the text
// part made from the same HTML as for any other template.
import escapeHtml from 'escape-html';
import { fillSubject, footerHtml, textPartOf, type EmailLayout, type EmailTemplate, type RenderedEmail } from '../../domain/email-templates.js';
import type { BlockSource } from './block-source.js';
import { renderBlockMarkup } from './render.js';

const FONT = 'font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#1f2937';

export async function renderBlockEmail(
  t: Pick<EmailTemplate, 'subject' | 'body'>,
  layout: EmailLayout,
  values: Readonly<Record<string, string>>,
  source: BlockSource,
): Promise<RenderedEmail> {
  const subject = fillSubject(t.subject, values);
  const body = await renderBlockMarkup(t.body, { source, values, color: layout.primaryColor });
  const footer = footerHtml(layout);
  const e = escapeHtml;
  const logo = layout.logoUrl === null ? '' : `<p style="margin:0 0 16px"><img src="${e(layout.logoUrl)}" alt="" height="48" style="max-height:48px;border:0"></p>\n`;
  const html = [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">',
    `<title>${e(subject)}</title></head>`,
    `<body style="margin:0;padding:0;background-color:#f4f4f5">`,
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="100%" bgcolor="#f4f4f5"><tr><td align="center" style="padding:24px 12px">`,
    `<table role="presentation" cellpadding="0" cellspacing="0" border="0" width="600" bgcolor="#ffffff" style="width:100%;max-width:600px;background-color:#ffffff;border-top:4px solid ${layout.primaryColor}">`,
    `<tr><td style="padding:24px;${FONT}">`,
    `${logo}${body}${footer}`,
    '</td></tr></table>',
    '</td></tr></table>',
    '</body></html>',
  ].join('\n');
  return { subject, html, text: textPartOf(`${body}${footer}`) };
}
