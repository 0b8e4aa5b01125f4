package suggest

import "testing"

func TestClosest(t *testing.T) {
	mcp := []string{"add", "approve", "call", "deny", "disable", "enable", "get", "import", "list", "login", "logout", "remove", "test", "tools"}
	for typo, want := range map[string]string{
		"rm": "remove", "lsit": "list", "tols": "tools", "ad": "add", "imprt": "import",
		"enabel": "enable", "tets": "test", "xyz": "", "": "", "q": "",
	} {
		if got := Closest(typo, mcp); got != want {
			t.Errorf("Closest(%q) = %q, want %q", typo, got, want)
		}
	}
	if got := Closest("mpc", []string{"chat", "mcp", "serve", "web"}); got != "mcp" {
		t.Errorf("Closest(mpc) = %q", got)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"list", "lsit", 1}, {"kitten", "sitting", 3}, {"rm", "get", 3}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
