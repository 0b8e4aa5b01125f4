// A real OAuth 2.1 / OpenID Connect authorization server for mcp-host's
// end-to-end tests: npm oidc-provider, configured the way an MCP deployment
// would be.
//
//   PORT=<port> RESOURCE=<MCP endpoint URL> ACCESS_TTL=<seconds> node oidc-provider.mjs
//
// - Dynamic client registration (open), PKCE required, RFC 8707 resource
//   indicators (only RESOURCE is a valid target; its access tokens are
//   ES256-signed JWTs with aud = RESOURCE and scope mcp:tools),
//   refresh-token rotation with reuse detection (a reused refresh token
//   revokes the whole grant), access tokens that live ACCESS_TTL seconds.
// - Login and consent: the provider's own development pages (any login name
//   and password are accepted), so a test drives them like a user would.
// - RFC 7592 client configuration: registration answers carry a
//   registration_client_uri and registration_access_token, with which a
//   client reads (and may update or delete) its registration; with
//   NO_REGISTRATION_READ=1 they are not issued, as at servers without RFC 7592.
// - /_test/stats (GET) reports request, registration and token-grant counts;
//   /_test/revoke (POST) revokes every grant, as a user would in the
//   provider's account page; /_test/forget (POST) forgets every dynamically
//   registered client and its grants, as a restart of a server keeping them
//   in memory does. None counts as a request.
// It prints "ready <issuer>" on stdout once it listens on 127.0.0.1.
import { generateKeyPairSync } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';

const port = Number(process.env.PORT);
const resource = process.env.RESOURCE;
const ttl = Number(process.env.ACCESS_TTL || 5);
if (!port || !resource) {
  console.error('oidc-provider.mjs: PORT and RESOURCE are required');
  process.exit(2);
}
const issuer = `http://127.0.0.1:${port}`;

const registrationRead = process.env.NO_REGISTRATION_READ !== '1';

const stats = { requests: 0, registrations: 0, grants: {}, paths: [] };
const grantIds = new Set();
const clientIds = new Set();

const provider = new Provider(issuer, {
  clients: [],
  scopes: ['openid', 'offline_access', 'mcp:tools'],
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true, issueRegistrationAccessToken: registrationRead },
    registrationManagement: { enabled: registrationRead },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator) => {
        if (indicator !== resource) throw new errors.InvalidTarget();
        return {
          scope: 'mcp:tools',
          audience: resource,
          accessTokenTTL: ttl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
  // A refresh token with every code grant of a client allowed to refresh,
  // without the prompt=consent that offline_access would otherwise need.
  issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: true,
  pkce: { required: () => true },
  ttl: { AccessToken: ttl, RefreshToken: 3600, Grant: 3600, Session: 3600, Interaction: 600, AuthorizationCode: 60 },
  clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256' },
  cookies: { keys: ['mcp-host-e2e-cookie-key'] },
  jwks: { keys: [esKey()] },
});
provider.proxy = false;

provider.on('grant.saved', (grant) => grantIds.add(grant.jti));
provider.on('grant.success', (ctx) => {
  const g = ctx.oidc.params.grant_type;
  stats.grants[g] = (stats.grants[g] || 0) + 1;
});
provider.on('registration_create.success', (ctx, client) => {
  stats.registrations += 1;
  clientIds.add(client.clientId);
});

provider.use(async (ctx, next) => {
  if (ctx.path === '/_test/stats') {
    ctx.body = stats;
    return;
  }
  if (ctx.path === '/_test/revoke' && ctx.method === 'POST') {
    let n = 0;
    for (const id of grantIds) {
      const g = await provider.Grant.find(id);
      if (g) { await g.destroy(); n += 1; }
    }
    grantIds.clear();
    ctx.body = { revoked: n };
    return;
  }
  if (ctx.path === '/_test/forget' && ctx.method === 'POST') {
    for (const id of grantIds) {
      const g = await provider.Grant.find(id);
      if (g) await g.destroy();
    }
    grantIds.clear();
    for (const id of clientIds) await provider.Client.adapter.destroy(id);
    ctx.body = { forgotten: clientIds.size };
    clientIds.clear();
    return;
  }
  stats.requests += 1;
  stats.paths.push(`${ctx.method} ${ctx.path}`);
  await next();
});

provider.listen(port, '127.0.0.1', () => {
  console.log(`ready ${issuer}`);
});

// esKey is a fresh P-256 signing key for the access tokens.
function esKey() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig', kid: 'e2e' };
}
