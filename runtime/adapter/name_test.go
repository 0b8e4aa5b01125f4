package adapter

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

var valid = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestPublicNameExamples(t *testing.T) {
	if got := PublicName("github", "create_issue"); !strings.HasPrefix(got, "mcp_github_create_issue_") || len(got) != len("mcp_github_create_issue_")+8 {
		t.Errorf("PublicName = %q", got)
	}
	if PublicName("a", "b-c") == PublicName("a", "b_c") {
		t.Error("tools whose slugs match got the same name")
	}
}

// TestPublicNameProperties: 10,000 random pairs, unicode and very long
// names included, give valid, unique and stable names.
func TestPublicNameProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abcXYZ019_-. /:é漢🙂")
	word := func() string {
		n := 1 + r.IntN(90)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	seen := map[string]string{}
	for i := range 10000 {
		server, tool := word(), fmt.Sprintf("%s%d", word(), i)
		name := PublicName(server, tool)
		if !valid.MatchString(name) {
			t.Fatalf("PublicName(%q, %q) = %q: invalid", server, tool, name)
		}
		if name != PublicName(server, tool) {
			t.Fatal("not stable")
		}
		key := server + "\x00" + tool
		if prev, ok := seen[name]; ok && prev != key {
			t.Fatalf("collision: %q for %q and %q", name, prev, key)
		}
		seen[name] = key
	}
}
