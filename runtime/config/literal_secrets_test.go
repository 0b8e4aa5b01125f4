package config

import (
	"strings"
	"testing"
)

func TestCheckSecrets(t *testing.T) {
	t.Setenv("MCP_HOST_TEST_SET", "x")
	for _, tc := range []struct {
		name    string
		c       ServerConfig
		err     string // "" for none
		warns   []string
		noWarns bool
	}{
		{name: "reference", c: ServerConfig{Headers: map[string]string{"Authorization": "Bearer ${MCP_HOST_TEST_SET}"}}, noWarns: true},
		{name: "unset reference", c: ServerConfig{Headers: map[string]string{"Authorization": "Bearer ${MCP_HOST_TEST_UNSET}"}}, warns: []string{"MCP_HOST_TEST_UNSET is not set"}},
		{name: "literal bearer", c: ServerConfig{Headers: map[string]string{"Authorization": "Bearer ghp_0123456789"}}, warns: []string{"-H 'Authorization: Bearer ${GH_TOKEN}'"}},
		{name: "literal api key header", c: ServerConfig{Headers: map[string]string{"X-Api-Key": "k0123"}}, warns: []string{"X-Api-Key"}},
		{name: "plain header", c: ServerConfig{Headers: map[string]string{"X-Team": "blue"}}, noWarns: true},
		{name: "bare scheme", c: ServerConfig{Headers: map[string]string{"Authorization": "Bearer"}}, err: `"headers.Authorization": no value after "Bearer"`},
		{name: "empty header", c: ServerConfig{Headers: map[string]string{"X-Team": " "}}, err: `"headers.X-Team": no value`},
		{name: "literal env", c: ServerConfig{Env: map[string]string{"GITHUB_TOKEN": "ghp_1"}}, warns: []string{"-e 'GITHUB_TOKEN=${GITHUB_TOKEN}'"}},
		{name: "empty secret env", c: ServerConfig{Env: map[string]string{"API_KEY": ""}}, err: `"env.API_KEY": empty value`},
		{name: "empty plain env", c: ServerConfig{Env: map[string]string{"DEBUG": ""}}, noWarns: true},
		{name: "escaped", c: ServerConfig{Env: map[string]string{"NOTE": "$${NOT_A_VAR}"}}, noWarns: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			warns, err := tc.c.CheckSecrets("gh")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, w := range warns {
				all = append(all, w.Field+": "+w.Message)
				for _, v := range append(mapValues(tc.c.Headers), mapValues(tc.c.Env)...) {
					if v != "" && !strings.Contains(v, "${") && strings.Contains(w.Message, v) {
						t.Errorf("the warning repeats the value %q: %s", v, w.Message)
					}
				}
			}
			joined := strings.Join(all, "\n")
			if tc.noWarns && len(warns) > 0 {
				t.Errorf("warnings: %s", joined)
			}
			for _, want := range tc.warns {
				if !strings.Contains(joined, want) {
					t.Errorf("warnings %q, want one with %q", joined, want)
				}
			}
		})
	}
}
