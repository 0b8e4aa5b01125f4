package serve

import (
	"encoding/json"
	"testing"
)

// An elicitation answer that does not match the requested schema is
// reported field by field, in words for the user; one that matches (as the
// SDK's validator sees it) is not.
func TestFormSchemaCheck(t *testing.T) {
	var wire any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"name":{"type":"string","minLength":2},
		"integer":{"type":"integer","minimum":1,"maximum":100},
		"hero":{"type":"string","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-2"}]},
		"pets":{"type":"array","minItems":1,"items":{"type":"string","enum":["cat","dog"]}},
		"check":{"type":"boolean"}},
		"required":["name"]}`), &wire); err != nil {
		t.Fatal(err)
	}
	f, err := newFormSchema(wire)
	if err != nil {
		t.Fatal(err)
	}
	for content, want := range map[string]string{
		`{"name":"Ada","integer":42,"hero":"hero-2","pets":["cat"],"check":true}`: ``,
		`{"name":"Ada","extra":1}`:       ``,
		`{"integer":42}`:                 `name: is required`,
		`{"name":"A"}`:                   `name: must be at least 2 characters`,
		`{"name":"Ada","integer":500}`:   `integer: must be at most 100`,
		`{"name":"Ada","integer":0}`:     `integer: must be at least 1`,
		`{"name":"Ada","integer":4.5}`:   `integer: must be a whole number`,
		`{"name":"Ada","integer":"7"}`:   `integer: must be a whole number`,
		`{"name":"Ada","hero":"hero-9"}`: `hero: must be one of: hero-1, hero-2`,
		`{"name":"Ada","pets":[]}`:       `pets: must have at least 1 choices`,
		`{"name":"Ada","pets":["fish"]}`: `pets: must only hold: cat, dog`,
		`{"name":"Ada","check":"yes"}`:   `check: must be true or false`,
		`{"check":1,"name":7}`:           `check: must be true or false; name: must be text`,
	} {
		var c map[string]any
		if err := json.Unmarshal([]byte(content), &c); err != nil {
			t.Fatal(err)
		}
		got := ""
		for i, e := range f.check(c) {
			if i > 0 {
				got += "; "
			}
			got += e.Field + ": " + e.Message
		}
		if got != want {
			t.Errorf("check(%s) = %q, want %q", content, got, want)
		}
	}
	if got := f.check(nil); len(got) != 1 || got[0].Field != "name" {
		t.Errorf("accept without content: %+v, want name required", got)
	}
	if f, err := newFormSchema(nil); err != nil || f.check(map[string]any{"x": 1}) != nil {
		t.Errorf("no schema checks nothing: %v", err)
	}
}
