package session

import "testing"

// objectMember finds a member's value only where it is unambiguous: one
// member of that name, spelled without escapes, in an object that ends.
func TestObjectMember(t *testing.T) {
	for _, tc := range []struct {
		obj, key, want string
		found          bool
	}{
		{`{"a":1,"b":[2,{"c":"}"}]}`, "b", `[2,{"c":"}"}]`, true},
		{` { "a" : "x" } `, "a", `"x"`, true},
		{`{"a":1}`, "b", "", false},
		{`{}`, "a", "", false},
		{`{"a":1,"a":2}`, "a", "", false},
		{`{"\u0061":1}`, "a", "", false},
		{`{"b":1,"\u0061":1}`, "b", "", false},
		{`{"a":1,}`, "a", "", false},
		{`{ ,"a":1}`, "a", "1", true}, // commas are not checked: the decoder refuses this later
		{`{"a":1 "b":2}`, "b", "2", true},
		{`{"a":1`, "a", "", false},
		{`{"a":`, "a", "", false},
		{`{"a"`, "a", "", false},
		{`{"a":1}trailing`, "a", "1", true},
		{`[{"a":1}]`, "a", "", false},
		{`{"a":"unterminated}`, "a", "", false},
	} {
		s, e, found := objectMember([]byte(tc.obj), tc.key)
		got := ""
		if found {
			got = tc.obj[s:e]
		}
		if found != tc.found || got != tc.want {
			t.Errorf("objectMember(%s, %q) = %q, %v; want %q, %v", tc.obj, tc.key, got, found, tc.want, tc.found)
		}
	}
}
