// The sign-in page's branding (FluentAuth's auth customizer), set by platform operators: the sign-in page is the
// platform's. Images are checked by their content (file-type's magic bytes, never a name or a declared type: PNG,
// JPEG or WebP, no SVG) and size, and kept in the database; the branding names one as its logo, two colours and a
// message. Every save is in the audit log with the branding before and after, in the save's transaction. The
// pages before signing in read `look()`.
import { fileTypeFromBuffer } from 'file-type';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/index.js';
import type { Operator } from '../domain/user.js';
import type { StoredBranding } from '../store/branding.js';
import {
  BRANDING_IMAGE_ID,
  BRANDING_MESSAGE_MAX,
  brandingCss,
  brandingImageIdOf,
  brandingImagePath,
  COLOUR,
  DEFAULT_BRANDING,
  isBrandingImageType,
  type BrandingImage,
  type BrandingLook,
  type SignInBranding,
} from '../domain/branding.js';
import { auditEntry } from './audit-log.js';
import { done, invalidFields, refuse, type FieldProblem, type Managed } from './management-refusals.js';

export interface BrandingDeps {
  config: Config;
  store: Store;
}

/** The branding as operators read it: the stored one (or Tern's look), its logo's path, when it was saved. */
export interface BrandingView {
  branding: SignInBranding;
  logoPath: string | null;
  updatedAt: string | null;
}

export class Branding {
  constructor(private readonly d: BrandingDeps) {}

  /** The largest image accepted, in bytes (an interface stops reading an upload past it). */
  get maxBytes(): number {
    return this.d.config.dashboard.brandingImageMaxBytes;
  }

  async get(): Promise<BrandingView> {
    const stored = await this.d.store.branding.settings();
    return this.view(stored);
  }

  /** Keeps an uploaded image if its content is a PNG, JPEG or WebP within the limit; the same bytes again are the same image. */
  async upload(operator: Operator, content: Buffer, log: Logger): Promise<Managed<{ image: BrandingImage; path: string }>> {
    if (content.length === 0) return refuse({ kind: 'invalid_field', field: 'file', message: 'The file is empty.' });
    if (content.length > this.maxBytes) return refuse({ kind: 'invalid_field', field: 'file', message: `The image must be at most ${this.maxBytes} bytes.` });
    const type = await fileTypeFromBuffer(content);
    if (!type || !isBrandingImageType(type.mime))
      return refuse({
        kind: 'invalid_field',
        field: 'file',
        message: `The image must be a PNG, JPEG or WebP (by its content); this is ${type ? type.mime : 'not an image of a known type'}.`,
      });
    const image = await this.d.store.branding.addImage({
      id: brandingImageIdOf(content),
      contentType: type.mime,
      content,
      uploadedBy: operator.id,
      createdAt: new Date().toISOString(),
    });
    log.info({ by: operator.id, image: image.id, type: image.contentType, bytes: content.length }, 'branding image uploaded');
    return done({ image, path: brandingImagePath(image) });
  }

  /** An uploaded image by its id; public (the sign-in page shows it to anyone). */
  image(id: string): Promise<BrandingImage | undefined> {
    return BRANDING_IMAGE_ID.test(id) ? this.d.store.branding.image(id) : Promise.resolve(undefined);
  }

  /** Saves a change (the parts not given stay), each part checked; nothing changes when one is wrong. */
  async save(operator: Operator, change: Partial<SignInBranding>, log: Logger): Promise<Managed<BrandingView>> {
    const before = (await this.d.store.branding.settings()) ?? DEFAULT_BRANDING;
    const branding: SignInBranding = {
      logoImageId: change.logoImageId !== undefined ? change.logoImageId : before.logoImageId,
      backgroundColor: change.backgroundColor !== undefined ? change.backgroundColor : before.backgroundColor,
      buttonColor: change.buttonColor !== undefined ? change.buttonColor : before.buttonColor,
      message: change.message ?? before.message,
    };
    const [first, ...more] = brandingProblems(branding);
    if (first) return invalidFields([first, ...more]);
    const at = new Date().toISOString();
    const saved = await this.d.store.branding.putSettings(branding, at, (was) =>
      auditEntry(
        operator,
        { action: 'branding.save', target: { kind: 'platform', id: 'sign_in.branding' }, before: was ? snapshot(was) : null, after: snapshot(branding), reason: '' },
        at,
      ),
    );
    if (!saved.ok) return unknownImage(branding.logoImageId);
    log.info({ by: operator.id }, 'sign-in branding saved');
    return done(await this.view({ ...branding, updatedAt: at }));
  }

  /** What the pages before signing in show: the logo's path, the message, the colours' stylesheet. */
  async look(): Promise<BrandingLook> {
    const { branding, logoPath } = await this.get();
    return { logoPath, message: branding.message, css: brandingCss(branding) };
  }

  private async view(stored: StoredBranding | undefined): Promise<BrandingView> {
    const branding = stored ?? DEFAULT_BRANDING;
    const logo = branding.logoImageId === null ? undefined : await this.d.store.branding.image(branding.logoImageId);
    return {
      branding: { logoImageId: branding.logoImageId, backgroundColor: branding.backgroundColor, buttonColor: branding.buttonColor, message: branding.message },
      logoPath: logo ? brandingImagePath(logo) : null,
      updatedAt: stored?.updatedAt ?? null,
    };
  }
}

const snapshot = (b: SignInBranding) => ({ logo_image_id: b.logoImageId, background_color: b.backgroundColor, button_color: b.buttonColor, message: b.message });

const unknownImage = <T>(id: string | null): Managed<T> =>
  refuse({ kind: 'invalid_field', field: 'logo_image_id', message: `logo_image_id ${JSON.stringify(id)} is no image uploaded by POST /upload-image` });

function brandingProblems(b: SignInBranding): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (b.logoImageId !== null && !BRANDING_IMAGE_ID.test(b.logoImageId))
    problems.push({ field: 'logo_image_id', message: 'logo_image_id must be the id POST /upload-image answered (32 hexadecimal digits), or null' });
  if (b.backgroundColor !== null && !COLOUR.test(b.backgroundColor))
    problems.push({ field: 'background_color', message: 'background_color must be a colour as #rrggbb, or null' });
  if (b.buttonColor !== null && !COLOUR.test(b.buttonColor)) problems.push({ field: 'button_color', message: 'button_color must be a colour as #rrggbb, or null' });
  if (b.message.length > BRANDING_MESSAGE_MAX) problems.push({ field: 'message', message: `message must have at most ${BRANDING_MESSAGE_MAX} characters` });
  return problems;
}
