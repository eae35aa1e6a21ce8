// A page's form that carries a file (multipart/form-data, as a browser sends a form with a file input): its
// fields, read as a urlencoded form's are (within the same limit), and at most one file in the page's named
// field. No more than one byte past the page's limit is kept (busboy cuts the file there and the rest is read and
// dropped), so the core's own size check refuses it and the form says so in its words. A file input left empty
// (no name, no bytes) is no file.
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { FORM_LIMIT_BYTES } from './request.js';
import { pageError, type PageError } from './errors.js';

export interface UploadedFile {
  /** The name the browser gave the file ('' when none). */
  fileName: string;
  content: Buffer;
}

export interface MultipartForm {
  form: URLSearchParams;
  file: UploadedFile | undefined;
}

/** The form's fields and its one file, or the refusal of a body that is not such a form. */
export function readMultipartForm(req: IncomingMessage, fileField: string, maxBytes: number): Promise<MultipartForm> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { fieldSize: FORM_LIMIT_BYTES, fields: 50, fileSize: maxBytes + 1, files: 1, parts: 60 } });
  } catch {
    return Promise.reject(pageError('unsupported_media_type', 'The form must be sent as multipart/form-data.'));
  }
  return new Promise((resolve, reject) => {
    const form = new URLSearchParams();
    const chunks: Buffer[] = [];
    let fileName = '';
    let fieldBytes = 0;
    let settled = false;
    const fail = (e: PageError): void => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.resume();
      reject(e);
    };
    parser.on('field', (name, value) => {
      fieldBytes += name.length + value.length;
      if (fieldBytes > FORM_LIMIT_BYTES) return fail(pageError('payload_too_large', `The form is larger than ${FORM_LIMIT_BYTES} bytes.`));
      form.append(name, value);
    });
    parser.on('file', (name, file, info) => {
      if (name !== fileField) {
        file.resume();
        return fail(pageError('invalid_request', 'The form carries a file it does not ask for.'));
      }
      fileName = info.filename ?? '';
      file.on('data', (chunk: Buffer) => chunks.push(chunk));
    });
    parser.on('filesLimit', () => fail(pageError('invalid_request', 'The form takes one file.')));
    parser.on('fieldsLimit', () => fail(pageError('payload_too_large', 'The form has too many fields.')));
    parser.on('partsLimit', () => fail(pageError('payload_too_large', 'The form has too many fields.')));
    parser.on('error', (err: Error) => fail(pageError('invalid_request', `The form could not be read: ${err.message}`)));
    parser.on('close', () => {
      if (settled) return;
      settled = true;
      const content = Buffer.concat(chunks);
      resolve({ form, file: fileName === '' && content.length === 0 ? undefined : { fileName, content } });
    });
    req.once('error', () => fail(pageError('invalid_request', 'The upload was cut short.')));
    req.pipe(parser);
  });
}
