// Application passwords, as WordPress has them: 24 characters from [A-Za-z0-9] shown once in groups of four,
// kept as their sha256 (they carry about 143 bits, so a slow hash adds nothing), used with the user's email
// as HTTP Basic credentials without a nonce; their last use (time and address) is recorded.
import { randomUUID } from 'node:crypto';
import { emailKey, type ApplicationPassword, type User } from '../../domain/user.js';
import { accountOfUser, clip, isoAt, type StoreDeps } from './deps.js';
import type { LoginSecurity } from './login-security.js';
import { randomAlphanumeric } from './passwords.js';
import { granted, invalidField, refused, type Identified } from './refusals.js';
import type { Logger } from '../../log.js';
import { hashToken } from './sessions.js';

const LENGTH = 24;
/** wp_is_uuid(): any UUID version. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CreatedApplicationPassword {
  uuid: string;
  /** Shown once, as WordPress shows it: groups of four characters separated by spaces. */
  password: string;
  name: string;
  appId: string | null;
  createdAt: string;
}

export interface ApplicationPasswordAuthentication {
  user: User;
  applicationPassword: ApplicationPassword;
}

/** WP_Application_Passwords::chunk_password. */
export const chunkPassword = (raw: string): string => raw.match(/.{1,4}/g)!.join(' ');

export const isUuid = (value: string): boolean => UUID.test(value);

export class ApplicationPasswords {
  constructor(
    private readonly d: StoreDeps,
    private readonly security: LoginSecurity,
  ) {}

  async create(user: User, o: { name: string; appId?: string }, log: Logger): Promise<Identified<CreatedApplicationPassword>> {
    // A one-time password must be replaced first: a credential made with it would outlive the change.
    if (user.mustChangePassword) return refused({ kind: 'password_change_required' });
    if (o.name.trim() === '' || o.name.length > 100) return invalidField('name', 'name must have 1 to 100 characters, not all spaces');
    if (/[\p{Cc}]/u.test(o.name)) return invalidField('name', 'name must be one line of text, without control characters');
    if (o.appId !== undefined && !isUuid(o.appId)) return invalidField('app_id', 'app_id must be a UUID');
    const raw = randomAlphanumeric(LENGTH);
    const created = await this.d.store.applicationPasswords.create({
      uuid: randomUUID(),
      userId: user.id,
      name: o.name,
      appId: o.appId ?? null,
      passwordHash: hashToken(raw),
      at: isoAt(this.d.now()),
    });
    if (created === 'name_taken') return refused({ kind: 'name_taken', field: 'name' });
    log.info({ user: user.id, uuid: created.uuid }, 'application password created');
    return granted({ uuid: created.uuid, password: chunkPassword(raw), name: created.name, appId: created.appId, createdAt: created.createdAt });
  }

  /** A user's application passwords, oldest first; no secret is ever listed. */
  list(user: User): Promise<ApplicationPassword[]> {
    return this.d.store.applicationPasswords.list(user.id);
  }

  async revoke(user: User, uuid: string, log: Logger): Promise<Identified<void>> {
    if (!(await this.d.store.applicationPasswords.revoke(user.id, uuid))) {
      return refused({ kind: 'not_found', what: 'application_password', message: 'Application password not found' });
    }
    log.info({ user: user.id, uuid }, 'application password revoked');
    return granted(undefined);
  }

  /** HTTP Basic `email:password`. As WordPress, every character but [A-Za-z0-9] in the password is ignored. */
  async authenticate(email: string, password: string, address: string): Promise<Identified<ApplicationPasswordAuthentication>> {
    const raw = password.replace(/[^A-Za-z0-9]/g, '');
    const invalid = refused<ApplicationPasswordAuthentication>({ kind: 'invalid_credentials' });
    if (raw.length !== LENGTH) return invalid;
    const found = await this.d.store.applicationPasswords.findByHash(hashToken(raw));
    const user = found && (await this.d.store.users.get(found.userId));
    if (!found || !user || emailKey(user.email) !== emailKey(email)) return invalid;
    // Checked on every request, not when the password was made: turning them off stops every one at once.
    const accountId = await accountOfUser(this.d, user);
    if (accountId !== undefined && !(await this.security.effective(accountId)).applicationPasswords) return refused({ kind: 'application_passwords_disabled' });
    const at = isoAt(this.d.now());
    await this.d.store.applicationPasswords.recordUse(found.uuid, at, clip(address, 64));
    return granted({ user, applicationPassword: { ...found, lastUsedAt: at, lastIp: clip(address, 64) } });
  }
}
