package auth

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// okTransport answers every request at once, so that a benchmark measures
// only what the handler's transport adds.
type okTransport struct{}

func (okTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
}

// BenchmarkRequestAuth compares the cost of presenting a token per request:
// a Bearer token passing through the handler's transport (the baseline) and
// a DPoP-bound token, which signs a fresh ES256 proof each time. Compare
// the two ns/op of one run.
func BenchmarkRequestAuth(b *testing.B) {
	for _, kind := range []string{"bearer", "dpop"} {
		b.Run(kind, func(b *testing.B) {
			rec := &Record{Token: &Token{AccessToken: "the-token", TokenType: "Bearer", ExpiresAt: time.Now().Add(time.Hour)}}
			h, err := New(Options{ServerID: "bench", ServerURL: "http://127.0.0.1:1/mcp"})
			if err != nil {
				b.Fatal(err)
			}
			if kind == "dpop" {
				rec.Token.TokenType = tokenTypeDPoP
				if _, err := h.dpopKey(rec); err != nil {
					b.Fatal(err)
				}
			}
			if err := h.opts.Store.Save(context.Background(), h.key, rec); err != nil {
				b.Fatal(err)
			}
			if err := h.load(context.Background()); err != nil {
				b.Fatal(err)
			}
			rt := h.WrapTransport(okTransport{})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", nil)
				req.Header.Set("Authorization", "Bearer the-token")
				resp, err := rt.RoundTrip(req)
				if err != nil || resp.StatusCode != 200 {
					b.Fatal(err)
				}
			}
		})
	}
}
