package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/lestrrat-go/jwx/v2/jwa"
	"github.com/lestrrat-go/jwx/v2/jwk"
	"github.com/lestrrat-go/jwx/v2/jws"
	"github.com/lestrrat-go/jwx/v2/jwt"
)

// DPoP (RFC 9449): where the authorization server advertises ES256 in
// dpop_signing_alg_values_supported, every token request carries a proof
// signed with a P-256 key kept in the server's Record, the token comes back
// bound to that key (token_type DPoP), and every request to the MCP server
// presents it as "Authorization: DPoP <token>" with a fresh proof whose ath
// is the token's hash. A use_dpop_nonce answer, at the token endpoint or at
// the resource, is retried once with the nonce the server sent.

// DPoP modes of Options.DPoP.
const (
	DPoPAuto    = ""
	DPoPRequire = "require"
	DPoPOff     = "off"
)

const (
	tokenTypeDPoP  = "DPoP"
	dpopAlg        = jwa.ES256
	dpopNonceError = "use_dpop_nonce"
)

// dpopWanted reports whether token requests to the authorization server in
// d should be DPoP-bound. In the default mode that takes both ends: the
// authorization server lists ES256 in dpop_signing_alg_values_supported, and
// the resource takes DPoP (it challenged with the DPoP scheme, or its
// metadata lists DPoP algorithms or requires bound tokens); a resource that
// only knows Bearer keeps Bearer tokens even where the authorization server
// offers DPoP. It fails where DPoP is required (by Options.DPoP or by the
// resource's dpop_bound_access_tokens_required) but the authorization server
// does not offer ES256 proofs.
func (h *Handler) dpopWanted(d *discovered) (bool, error) {
	if h.opts.DPoP == DPoPOff {
		return false, nil
	}
	offered := d.meta != nil && slices.Contains(d.meta.dpopAlgs, dpopAlg.String())
	rsRequires := d.prm != nil && d.prm.DPOPBoundAccessTokensRequired
	rsTakes := rsRequires || h.dpopChallenged.Load() || (d.prm != nil && len(d.prm.DPOPSigningAlgValuesSupported) > 0)
	required := h.opts.DPoP == DPoPRequire || rsRequires
	if required && !offered {
		return false, fmt.Errorf("server %s: DPoP-bound tokens are required but authorization server %s does not list %s in dpop_signing_alg_values_supported", h.opts.ServerID, d.issuer, dpopAlg)
	}
	return offered && (required || rsTakes), nil
}

// isDPoP reports whether t is bound to the record's DPoP key.
func isDPoP(t *Token) bool { return t != nil && strings.EqualFold(t.TokenType, tokenTypeDPoP) }

// dpopKey returns the private key of rec, generating one into rec (which the
// caller then saves with the token bound to it) the first time.
func (h *Handler) dpopKey(rec *Record) (jwk.Key, error) {
	h.dpopMu.Lock()
	defer h.dpopMu.Unlock()
	if rec.DPoPKey != "" {
		if h.dpopCache != nil && h.dpopCacheRaw == rec.DPoPKey {
			return h.dpopCache, nil
		}
		k, err := jwk.ParseKey([]byte(rec.DPoPKey))
		if err != nil {
			return nil, fmt.Errorf("server %s: stored DPoP key is unreadable: %w", h.opts.ServerID, err)
		}
		h.dpopCache, h.dpopCacheRaw = k, rec.DPoPKey
		return k, nil
	}
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("server %s: generating a DPoP key: %w", h.opts.ServerID, err)
	}
	k, err := jwk.FromRaw(priv)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(k)
	if err != nil {
		return nil, err
	}
	rec.DPoPKey = string(raw)
	h.dpopCache, h.dpopCacheRaw = k, rec.DPoPKey
	return k, nil
}

// dpopProof signs a proof for a request with method to target. token, when
// set, is bound through ath; nonce is the server's latest DPoP-Nonce.
func (h *Handler) dpopProof(key jwk.Key, method, target, token, nonce string) (string, error) {
	pub, err := key.PublicKey()
	if err != nil {
		return "", err
	}
	b := jwt.NewBuilder().
		JwtID(randomString()).
		IssuedAt(h.now()).
		Claim("htm", method).
		Claim("htu", htu(target))
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		b = b.Claim("ath", base64.RawURLEncoding.EncodeToString(sum[:]))
	}
	if nonce != "" {
		b = b.Claim("nonce", nonce)
	}
	tok, err := b.Build()
	if err != nil {
		return "", err
	}
	hdr := jws.NewHeaders()
	_ = hdr.Set(jws.TypeKey, "dpop+jwt")
	_ = hdr.Set(jws.JWKKey, pub)
	signed, err := jwt.Sign(tok, jwt.WithKey(dpopAlg, key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		return "", fmt.Errorf("server %s: signing a DPoP proof: %w", h.opts.ServerID, err)
	}
	return string(signed), nil
}

// htu is the proof's target URI: the request URL without query and
// fragment (RFC 9449 section 4.2).
func htu(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = "", "", "", false
	return u.String()
}

// nonce returns the last DPoP-Nonce the origin of target sent.
func (h *Handler) nonce(target string) string {
	h.dpopMu.Lock()
	defer h.dpopMu.Unlock()
	return h.nonces[originOf(target)]
}

// noteNonce remembers a DPoP-Nonce the origin of target sent; it reports
// whether the nonce is new.
func (h *Handler) noteNonce(target string, hdr http.Header) bool {
	n := hdr.Get("DPoP-Nonce")
	if n == "" {
		return false
	}
	o := originOf(target)
	h.dpopMu.Lock()
	defer h.dpopMu.Unlock()
	if h.nonces == nil {
		h.nonces = map[string]string{}
	}
	if h.nonces[o] == n {
		return false
	}
	h.nonces[o] = n
	return true
}
