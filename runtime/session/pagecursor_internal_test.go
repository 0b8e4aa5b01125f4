package session

import "testing"

// earlyCursor, on every cut of a message, either waits for more or gives
// the answer the whole message gives, and on the whole message it always
// decides.
func TestEarlyCursorAtEveryCut(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":7,"result":{"nextCursor":"c2","tools":[{"name":"a"}]}}`, "c2"},
		{`{"jsonrpc":"2.0","id":7,"result":{"_meta":{"x":[1,{"y":"}"}]},"ttlMs":5,"nextCursor":"c\"2","tools":[]}}`, `c"2`},
		{` { "id" : "x" , "result" : { "nextCursor" : "sp" } } `, "sp"},
		{`{"jsonrpc":"2.0","id":7,"result":{"tools":[{"name":"a"}],"nextCursor":"late"}}`, ""},
		{`{"jsonrpc":"2.0","id":7,"result":{"nextCursor":5,"tools":[]}}`, ""},
		{`{"jsonrpc":"2.0","id":7,"result":{"next\u0043ursor":"esc","tools":[]}}`, ""},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"nextCursor":"no"}}`, ""},
		{`{"jsonrpc":"2.0","id":7,"result":[]}`, ""},
		{`[{"result":{"nextCursor":"batch"}}]`, ""},
		{`"just a string"`, ""},
	} {
		for cut := 0; cut <= len(tc.msg); cut++ {
			got, final := earlyCursor([]byte(tc.msg[:cut]))
			switch {
			case final && got != tc.want:
				t.Errorf("%s cut at %d: %q, want %q", tc.msg, cut, got, tc.want)
			case !final && got != "":
				t.Errorf("%s cut at %d: undecided but gave %q", tc.msg, cut, got)
			case cut == len(tc.msg) && !final:
				t.Errorf("%s: undecided on the whole message", tc.msg)
			}
		}
	}
}
