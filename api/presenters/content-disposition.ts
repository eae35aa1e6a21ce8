// How a downloaded file is named, for the REST routes and the pages alike.

/** Content-Disposition naming the file: an ASCII fallback and the UTF-8 name (RFC 6266, RFC 8187). */
export function dispositionOf(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
