// A local double of the two sign-in providers, on loopback HTTP: an OpenID Connect provider shaped as Google
// (discovery document, JWKS, authorize, token with an ID token signed by jose, userinfo) and GitHub's OAuth 2
// (authorize, access_token, /user, /user/emails) on the same origin. Its authorize endpoint asks nobody: it sends
// the browser straight back with a code for the identity the test set, and its token endpoint checks what a real
// provider checks (the client's secret, the redirect URI, the PKCE verifier, one use of a code).
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

/** Who the next sign-in at the double is. */
export interface DoubleIdentity {
  /** OpenID Connect's `sub`; GitHub's numeric user id (as text). */
  subject: string;
  /** Left out of the ID token (read from userinfo instead) when `emailInUserinfoOnly`. */
  email: string;
  emailVerified: boolean;
  emailInUserinfoOnly?: boolean;
  /** The ID token carries another nonce than the one asked for (a replayed token, as a relying party must refuse). */
  wrongNonce?: boolean;
}

export interface ProviderDouble {
  /** http://127.0.0.1:port: the OpenID Connect issuer, and GitHub's web and API origin. */
  url: string;
  clientId: string;
  clientSecret: string;
  /** The identity the next authorize answers for. */
  identity: DoubleIdentity;
  /** Codes the token endpoint refused, with why (a test reads it to know the double said no). */
  readonly refusals: string[];
  close(): Promise<void>;
}

interface Grant {
  identity: DoubleIdentity;
  redirectUri: string;
  challenge: string;
  nonce: string | undefined;
  openid: boolean;
}

const KID = 'double-key';

export async function startProviderDouble(clientId = 'tern-test-client', clientSecret = 'double-secret-0123456789'): Promise<ProviderDouble> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const grants = new Map<string, Grant>();
  const tokens = new Map<string, DoubleIdentity>();
  const double: ProviderDouble = {
    url: '',
    clientId,
    clientSecret,
    identity: { subject: 'double-subject', email: 'nobody@example.com', emailVerified: true },
    refusals: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void> = {
    'GET /.well-known/openid-configuration': (_req, res) => json(res, 200, discoveryDocument(double.url)),
    'GET /jwks': (_req, res) => json(res, 200, { keys: [jwk] }),
    'GET /authorize': (_req, res, url) => authorize(double, grants, res, url, true),
    'GET /login/oauth/authorize': (_req, res, url) => authorize(double, grants, res, url, false),
    'POST /token': (req, res) => token(double, grants, tokens, privateKey, req, res),
    'POST /login/oauth/access_token': (req, res) => token(double, grants, tokens, privateKey, req, res),
    'GET /userinfo': (req, res) => withBearer(tokens, req, res, (i) => ({ sub: i.subject, email: i.email, email_verified: i.emailVerified })),
    'GET /user': (req, res) => withBearer(tokens, req, res, (i) => ({ id: Number(i.subject), login: `user${i.subject}`, email: null })),
    'GET /user/emails': (req, res) =>
      withBearer(tokens, req, res, (i) => [
        { email: `secondary-${i.subject}@example.net`, primary: false, verified: true, visibility: null },
        { email: i.email, primary: true, verified: i.emailVerified, visibility: 'private' },
      ]),
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', double.url);
    const route = routes[`${req.method} ${url.pathname}`];
    if (!route) return json(res, 404, { error: 'not_found' });
    Promise.resolve(route(req, res, url)).catch((err: unknown) => json(res, 500, { error: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return double;
}

const discoveryDocument = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  userinfo_endpoint: `${issuer}/userinfo`,
  jwks_uri: `${issuer}/jwks`,
  response_types_supported: ['code'],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['RS256'],
  code_challenge_methods_supported: ['S256'],
  token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  scopes_supported: ['openid', 'email', 'profile'],
});

/** Straight back to the redirect URI with a code (and the state), as if the person had agreed. */
function authorize(d: ProviderDouble, grants: Map<string, Grant>, res: ServerResponse, url: URL, openid: boolean): void {
  const q = url.searchParams;
  const redirectUri = q.get('redirect_uri') ?? '';
  if (q.get('client_id') !== d.clientId || !redirectUri || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
    return json(res, 400, { error: 'invalid_request' });
  const code = randomBytes(16).toString('hex');
  grants.set(code, { identity: { ...d.identity }, redirectUri, challenge: q.get('code_challenge')!, nonce: q.get('nonce') ?? undefined, openid });
  const back = new URL(redirectUri);
  back.searchParams.set('code', code);
  if (q.get('state') !== null) back.searchParams.set('state', q.get('state')!);
  res.writeHead(302, { location: back.href });
  res.end();
}

/** The code exchanged once, for an access token (and for OpenID Connect an ID token with the nonce). */
async function token(
  d: ProviderDouble,
  grants: Map<string, Grant>,
  tokens: Map<string, DoubleIdentity>,
  key: CryptoKey,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const form = new URLSearchParams(await bodyOf(req));
  const [basicId, basicSecret] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
    .toString()
    .split(':')
    .map(decodeURIComponent);
  const clientId = form.get('client_id') ?? basicId;
  const secret = form.get('client_secret') ?? basicSecret;
  const code = form.get('code') ?? '';
  const grant = grants.get(code);
  grants.delete(code);
  const verifier = form.get('code_verifier') ?? '';
  const problem =
    clientId !== d.clientId || secret !== d.clientSecret
      ? 'invalid_client'
      : !grant || grant.redirectUri !== form.get('redirect_uri')
        ? 'invalid_grant'
        : createHash('sha256').update(verifier).digest('base64url') !== grant.challenge
          ? 'invalid_grant (pkce)'
          : undefined;
  if (problem || !grant) {
    d.refusals.push(problem ?? 'invalid_grant');
    return json(res, 400, { error: (problem ?? 'invalid_grant').split(' ')[0] });
  }
  const accessToken = randomBytes(16).toString('hex');
  tokens.set(accessToken, grant.identity);
  const answer: Record<string, unknown> = {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: 3600,
    scope: grant.openid ? 'openid email profile' : 'read:user,user:email',
  };
  if (grant.openid) answer.id_token = await idToken(d, grant, key);
  json(res, 200, answer);
}

function idToken(d: ProviderDouble, grant: Grant, key: CryptoKey): Promise<string> {
  const i = grant.identity;
  const claims = i.emailInUserinfoOnly ? {} : { email: i.email, email_verified: i.emailVerified };
  const nonce = i.wrongNonce ? 'another-sign-in' : grant.nonce;
  return new SignJWT({ ...claims, ...(nonce ? { nonce } : {}) })
    .setProtectedHeader({ alg: 'RS256', kid: KID })
    .setIssuer(d.url)
    .setAudience(d.clientId)
    .setSubject(i.subject)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
}

function withBearer(tokens: Map<string, DoubleIdentity>, req: IncomingMessage, res: ServerResponse, answer: (i: DoubleIdentity) => unknown): void {
  const identity = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /i, ''));
  if (!identity) return json(res, 401, { message: 'Bad credentials' });
  json(res, 200, answer(identity));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
