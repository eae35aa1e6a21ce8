// A page is data, as a dashboard route is: a method, a path (`:name` for its variables), a title for its error
// pages, who may open it, and a handler returning what to answer. Four kinds by who may open it: anyone, any
// signed-in user, a user of an account (with the least role its action needs, as the REST routes say it), or a
// platform operator. The pages' route group (web/group.ts) settles who is asking before a handler runs.
import type { AppContext } from '../pipeline/context.js';
import type { Logger } from '../../shared/log.js';
import type { PageReply } from './reply.js';
import type { PageRequest } from './request.js';
import type { WriteBucket } from '../../shared/core/write-rates.js';
import type { AccountViewer, OperatorViewer, Viewer } from './viewer.js';
import type { UploadedFile } from './upload-form.js';

export type PageMethod = 'GET' | 'POST';

/** What a signed-in page's handler is given: the request, who views it, and for a POST its form (checked: same site, CSRF token). */
export interface PageCall<V extends Viewer> {
  ctx: AppContext;
  r: PageRequest;
  log: Logger;
  viewer: V;
  /** The posted form; empty for a GET. */
  form: URLSearchParams;
  /** The file a page taking one (`upload`) was sent, if any. */
  file?: UploadedFile;
}

interface PageShape {
  method: PageMethod;
  path: string;
  /** The title of its error pages. */
  title: string;
  /** The navigation section it belongs to (highlighted); defaults to its path. */
  section?: string;
  /**
   * The account's write bucket a form counts against, the one the REST routes and /v2 count against too (so no
   * interface doubles the allowance); by default every POST of an account's user counts against `writes`. null
   * for the forms about the session itself (switching team, logging out, the forced password change).
   */
  rate?: WriteBucket | null;
  /**
   * A form that may carry a file (multipart/form-data, a urlencoded form still accepted): its file input's name
   * and the largest file taken (the core's limit, so the page refuses no less and takes no more than REST).
   */
  upload?: { field: string; maxBytes(ctx: AppContext): number };
}

export interface PublicPage extends PageShape {
  access: 'public';
  handle(ctx: AppContext, r: PageRequest, log: Logger): Promise<PageReply>;
}

export interface SelfPage extends PageShape {
  access: 'self';
  /** True for the pages a user whose password must change may still open (the change itself, logging out). */
  duringPasswordChange?: boolean;
  handle(call: PageCall<Viewer>): Promise<PageReply>;
}

export interface AccountPage extends PageShape {
  /** The least role: any (read), owner or admin (write), the owner (owner). */
  access: 'read' | 'write' | 'owner';
  handle(call: PageCall<AccountViewer>): Promise<PageReply>;
}

export interface OperatorPage extends PageShape {
  access: 'operator';
  handle(call: PageCall<OperatorViewer>): Promise<PageReply>;
}

export type Page = PublicPage | SelfPage | AccountPage | OperatorPage;

/** Typed constructors, so each handler's viewer type follows from its access. */
export const publicPage = (p: Omit<PublicPage, 'access'>): PublicPage => ({ ...p, access: 'public' });
export const selfPage = (p: Omit<SelfPage, 'access'>): SelfPage => ({ ...p, access: 'self' });
export const accountPage = (p: AccountPage): AccountPage => p;
export const operatorPage = (p: Omit<OperatorPage, 'access'>): OperatorPage => ({ ...p, access: 'operator' });
