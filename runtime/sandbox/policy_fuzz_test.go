package sandbox

import (
	"encoding/json"
	"path"
	"strings"
	"testing"
)

// FuzzPolicy: any "sandbox" value either fails to parse with an error
// naming the field, or parses to a policy that marshals back to the same
// policy; Tighten never lets a project grant through that no global grant
// covers after cleaning (no "../" climbs out of a grant).
func FuzzPolicy(f *testing.F) {
	for _, s := range []string{`"default"`, `"strict"`, `false`, `{"base":"strict","filesystem":{"read":["~/a"],"write":["b"]},"network":["x:443","*.y:*"],"unix_sockets":["/run/d.sock"],"required":true}`, `{"network":"none"}`, `{"filesystem":{"write":["~/projects/../.ssh"]}}`} {
		f.Add(s, "~/projects")
	}
	f.Fuzz(func(t *testing.T, raw, globalGrant string) {
		var p Policy
		if err := json.Unmarshal([]byte(raw), &p); err != nil {
			if !strings.Contains(err.Error(), "sandbox") && !strings.HasPrefix(err.Error(), "json:") && !strings.Contains(err.Error(), "invalid character") && !strings.Contains(err.Error(), "unexpected end") && !strings.Contains(err.Error(), "cannot unmarshal") {
				t.Errorf("error names no field: %v", err)
			}
			return
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("marshal %+v: %v", p, err)
		}
		var q Policy
		if err := json.Unmarshal(b, &q); err != nil || q.DigestInput() != p.DigestInput() {
			t.Fatalf("round trip %s -> %s: %v", raw, b, err)
		}
		if strings.ContainsRune(globalGrant, 0) || strings.TrimSpace(globalGrant) == "" {
			return
		}
		out, _ := Tighten(Policy{Write: []string{globalGrant}}, p)
		g := path.Clean(globalGrant)
		for _, w := range append(append([]string{}, out.Read...), out.Write...) {
			c := path.Clean(w)
			if c != g && g != "/" && !strings.HasPrefix(c, strings.TrimSuffix(g, "/")+"/") {
				t.Errorf("project grant %q passed under global %q", w, globalGrant)
			}
		}
	})
}
