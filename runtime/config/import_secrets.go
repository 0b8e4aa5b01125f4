package config

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// secretName matches the environment variable and header names whose
// values are taken for secrets on import.
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(token|key|secret|passw|pwd|auth|credential|cookie|session)`)
})

// authScheme splits an Authorization value into its scheme and the
// credential: only the credential moves out.
var authScheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(bearer|basic|token|bot|dpop)\s+(\S.*)$`) })

// secretFlag matches a command-line flag that takes a secret
// (--api-key, --token=…), but not one that names where a secret is
// (--key-file, --token-url).
var (
	secretFlag = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^--?[a-z0-9_-]*(token|key|secret|passw|pwd|credential)[a-z0-9_-]*$`)
	})
	notSecretFlag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)(file|path|dir|type|url|id|name)$`) })
)

// vscodeEnvRef is VS Code's ${env:NAME}, which means our ${NAME}.
var vscodeEnvRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`) })

// moveSecrets replaces each secret value in c's env, headers, OAuth
// client secret and command-line flags (--api-key VALUE, --token=VALUE) by a ${VAR}
// reference and returns what it moved, sorted by field. A value
// that already references a variable is left as it is. used holds the
// variable names taken so far in this import, so that two entries never
// share one.
func moveSecrets(id string, c *ServerConfig, used map[string]bool) []MovedSecret {
	var moved []MovedSecret
	move := func(kind string, m map[string]string) {
		for _, k := range sortedKeys(m) {
			v := vscodeEnvRef().ReplaceAllString(m[k], "$${$1}")
			m[k] = v
			if v == "" || strings.Contains(v, "${") || !secretName().MatchString(k) {
				continue
			}
			name := uniqueVar(secretVar(id, k), used)
			ref := "${" + name + "}"
			if kind == "headers" {
				if p := authScheme().FindStringSubmatch(v); p != nil {
					ref = p[1] + " " + ref
				}
			}
			m[k] = ref
			moved = append(moved, MovedSecret{Field: kind + "." + k, Var: name})
		}
	}
	move("env", c.Env)
	move("headers", c.Headers)
	if c.OAuth != nil && c.OAuth.ClientSecret != "" && !strings.Contains(c.OAuth.ClientSecret, "${") {
		name := uniqueVar(secretVar(id, "client_secret"), used)
		c.OAuth.ClientSecret = "${" + name + "}"
		moved = append(moved, MovedSecret{Field: "oauth.client_secret", Var: name})
	}
	for i := 0; i < len(c.Args); i++ {
		flag, value, inline := strings.Cut(c.Args[i], "=")
		if !secretFlag().MatchString(flag) || notSecretFlag().MatchString(flag) {
			continue
		}
		at := i
		if !inline {
			if i+1 >= len(c.Args) || strings.HasPrefix(c.Args[i+1], "-") {
				continue
			}
			at, value = i+1, c.Args[i+1]
		}
		if value == "" || strings.Contains(value, "${") {
			continue
		}
		name := uniqueVar(secretVar(id, strings.TrimLeft(flag, "-")), used)
		if inline {
			c.Args[at] = flag + "=${" + name + "}"
		} else {
			c.Args[at] = "${" + name + "}"
			i++
		}
		moved = append(moved, MovedSecret{Field: fmt.Sprintf("args[%d]", at), Var: name})
	}
	sort.Slice(moved, func(i, j int) bool { return moved[i].Field < moved[j].Field })
	return moved
}

// secretVar derives a variable name from a server id and a key:
// upper-case, non-alphanumerics as '_', prefixed by the id unless the key
// already starts with it (github's GITHUB_TOKEN stays GITHUB_TOKEN).
func secretVar(id, key string) string {
	prefix, k := envName(id), envName(key)
	if strings.HasPrefix(k, prefix+"_") || k == prefix {
		return k
	}
	return prefix + "_" + k
}

// envName makes s a conventional environment variable name.
func envName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	n := strings.Trim(b.String(), "_")
	if n == "" || (n[0] >= '0' && n[0] <= '9') {
		n = "MCP_" + n
	}
	return n
}

// uniqueVar returns name, or name_2, name_3... if it is taken, and
// takes it.
func uniqueVar(name string, used map[string]bool) string {
	out := name
	for n := 2; used[out]; n++ {
		out = name + "_" + strconv.Itoa(n)
	}
	used[out] = true
	return out
}
