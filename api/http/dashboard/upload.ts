// Reading one uploaded file off a multipart/form-data request stream (busboy), as WordPress's media upload
// takes it: one file part, in a named field. The file is refused while it streams in once it passes the
// limit, so no more than the limit is ever held; what is left of the body is then read and dropped.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { dashboardError, MESSAGES, type DashboardError } from '../../pipeline/dashboard-errors.js';

/** Why no file was read: not multipart, no file in the field, too large, a second file, another part, a broken body. */
export type UploadProblem =
  | { kind: 'no_file'; detail?: string }
  | { kind: 'too_large'; limit: number }
  | { kind: 'too_many_files'; field: string }
  | { kind: 'unexpected_field'; name: string; field: string };

/** `fileName`: the name the client gave the part (its Content-Disposition filename), '' when it gave none. */
export type FileRead = { ok: true; content: Buffer; fileName: string } | { ok: false; problem: UploadProblem };

interface Reading {
  field: string;
  limit: number;
  finish(read: FileRead): void;
}

/** Wires busboy's events to one outcome: the first problem, or the whole file once the body ends. */
function watch(parser: busboy.Busboy, r: Reading): void {
  const chunks: Buffer[] = [];
  let received = false;
  let fileName = '';
  parser.on('file', (name, file, info) => {
    if (name !== r.field) {
      file.resume();
      return r.finish({ ok: false, problem: { kind: 'unexpected_field', name, field: r.field } });
    }
    received = true;
    fileName = info.filename ?? '';
    file.on('data', (chunk: Buffer) => chunks.push(chunk));
    file.on('limit', () => r.finish({ ok: false, problem: { kind: 'too_large', limit: r.limit } }));
  });
  parser.on('field', (name) => r.finish({ ok: false, problem: { kind: 'unexpected_field', name, field: r.field } }));
  parser.on('filesLimit', () => r.finish({ ok: false, problem: { kind: 'too_many_files', field: r.field } }));
  parser.on('error', (err: Error) => r.finish({ ok: false, problem: { kind: 'no_file', detail: `the multipart body could not be read: ${err.message}` } }));
  parser.on('close', () => r.finish(received ? { ok: true, content: Buffer.concat(chunks), fileName } : { ok: false, problem: { kind: 'no_file' } }));
}

/** The one file sent in `field`, at most `limit` bytes, or why there is none. */
export function readOneFile(stream: Readable | undefined, headers: IncomingHttpHeaders, field: string, limit: number): Promise<FileRead> {
  if (!stream) return Promise.resolve({ ok: false, problem: { kind: 'no_file' } });
  let parser: busboy.Busboy;
  try {
    // busboy signals its limit when a file REACHES it: one byte more, so a file of exactly `limit` bytes passes.
    parser = busboy({ headers, limits: { fileSize: limit + 1, files: 1 } });
  } catch {
    return Promise.resolve({ ok: false, problem: { kind: 'no_file', detail: 'send the file as multipart/form-data' } });
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (read: FileRead): void => {
      if (settled) return;
      settled = true;
      if (!read.ok) {
        // Stop parsing; the rest of the body is read and dropped, so the answer reaches a client still sending.
        stream.unpipe(parser);
        stream.resume();
      }
      resolve(read);
    };
    watch(parser, { field, limit, finish });
    // A client that goes away mid-upload ends the reading too (busboy alone would wait for the rest).
    stream.once('error', () => finish({ ok: false, problem: { kind: 'no_file', detail: 'the upload was cut short' } }));
    stream.once('close', () => {
      if (!stream.readableEnded) finish({ ok: false, problem: { kind: 'no_file', detail: 'the upload was cut short' } });
    });
    stream.pipe(parser);
  });
}

/** An upload problem in WordPress's words (its media upload's codes where it has them). */
export function uploadError(problem: UploadProblem): DashboardError {
  switch (problem.kind) {
    case 'no_file':
      return dashboardError('rest_upload_no_data', problem.detail ? `${MESSAGES.rest_upload_no_data} (${problem.detail})` : MESSAGES.rest_upload_no_data);
    case 'too_large':
      return dashboardError('rest_upload_file_too_big', `This file is too big. Files must be less than ${Math.floor(problem.limit / 1024)} KB in size.`, {
        max_bytes: problem.limit,
      });
    case 'too_many_files':
      return dashboardError('rest_upload_too_many_files', `Send one file only, in the field named ${problem.field}.`);
    case 'unexpected_field':
      return dashboardError('rest_upload_unexpected_field', `The upload takes one file in the field named ${problem.field}; ${problem.name} is not one.`);
  }
}

/**
 * A file sent as the whole request body (WordPress's raw upload): at most `limit` bytes, refused by its
 * Content-Length before reading, or while it streams in once it passes the limit (the rest is read and dropped).
 */
export function readRawBody(stream: Readable | undefined, headers: IncomingHttpHeaders, limit: number): Promise<FileRead> {
  if (!stream) return Promise.resolve({ ok: false, problem: { kind: 'no_file' } });
  const declared = Number(headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    stream.resume();
    return Promise.resolve({ ok: false, problem: { kind: 'too_large', limit } });
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (read: FileRead): void => {
      if (settled) return;
      settled = true;
      if (!read.ok) {
        stream.removeAllListeners('data');
        stream.resume();
      }
      resolve(read);
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return finish({ ok: false, problem: { kind: 'too_large', limit } });
      chunks.push(chunk);
    });
    stream.once('end', () => finish({ ok: true, content: Buffer.concat(chunks), fileName: '' }));
    stream.once('error', () => finish({ ok: false, problem: { kind: 'no_file', detail: 'the upload was cut short' } }));
    stream.once('close', () => {
      if (!stream.readableEnded) finish({ ok: false, problem: { kind: 'no_file', detail: 'the upload was cut short' } });
    });
  });
}
