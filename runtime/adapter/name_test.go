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

// TestPublicNameGolden pins names computed by the first release, so a
// change to the algorithm cannot silently rename tools users have already
// allowed or scripted against.
func TestPublicNameGolden(t *testing.T) {
	for _, c := range [][3]string{
		{"github", "create_issue", "mcp_github_create_issue_e153f00a"},
		{"My Server", "Do/Thing!", "mcp_my_server_do_thing_c6f2fbf0"},
		{"é漢🙂", "🙂", "mcp_x_x_dc9205ac"},
		{"İstanbul", "KELVINK", "mcp_istanbul_kelvink_b60dff0e"},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "b", "mcp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_b_70cdfe2e"},
		{"s", "tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt", "mcp_s_ttttttttttttttttttttttttttttttttttttttttttttttttt_e955ca8f"},
		{"ssssssssssssssssssssssssssssssssssssssssssss", "tttttttttttttttttttttttttttttttttttttttttttttttttttt", "mcp_sssssssssssssssssssssssss_ttttttttttttttttttttttttt_52d7906f"},
		{"__a--b__", "--", "mcp_a_b_x_2a9a6a96"},
	} {
		if got := PublicName(c[0], c[1]); got != c[2] {
			t.Errorf("PublicName(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestPublicNameAllocs(t *testing.T) {
	allocs := testing.AllocsPerRun(100, func() { PublicName("my-server", "some/tool name") })
	if allocs > 1 {
		t.Errorf("PublicName allocates %v times, want at most 1 (the result)", allocs)
	}
}
