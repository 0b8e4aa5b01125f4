package session

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxRetryAfter is the longest Retry-After the session waits for. A server
// asking for longer gets its answer passed on: the request fails now.
const maxRetryAfter = 30 * time.Second

// retryWait returns how long to wait before sending req again after resp,
// and whether to: only a 429 or 503 with a Retry-After of at most
// maxRetryAfter that ends before the request's deadline, and only for a
// request that can be sent again.
func retryWait(req *http.Request, resp *http.Response, now time.Time) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return 0, false
	}
	d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), now)
	if !ok || d > maxRetryAfter {
		return 0, false
	}
	if dl, has := req.Context().Deadline(); has && !now.Add(d).Before(dl) {
		return 0, false
	}
	return d, true
}

// parseRetryAfter reads delay-seconds or an HTTP date (RFC 9110 10.2.3).
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		switch {
		case n < 0:
			return 0, false
		case n > int64(maxRetryAfter/time.Second):
			return maxRetryAfter + time.Second, true // over the cap, without overflow
		}
		return time.Duration(n) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// retry waits d and sends req once more, or returns resp as it is if the
// request ends first or cannot be rebuilt.
func (g *guardRoundTripper) retry(req *http.Request, resp *http.Response, d time.Duration) (*http.Response, error) {
	again := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return resp, nil
		}
		again.Body = body
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, errorBodyBytes))
	resp.Body.Close()
	g.log.Debug("server asked to retry later", "server", g.id, "status", resp.StatusCode, "after", d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-req.Context().Done():
		return nil, req.Context().Err()
	case <-t.C:
	}
	return g.next.RoundTrip(again)
}
