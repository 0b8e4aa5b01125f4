package config

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
)

// SecretWarning is a value of a server's headers or env that looks like a
// secret written in clear (not a ${VAR} reference), or a reference to a
// variable that is not set where the check ran. Message names the field
// and the form to use instead; it never quotes the value.
type SecretWarning struct {
	Field   string
	Message string
}

// CheckSecrets looks at the headers and env of a server entry about to be
// written (id is its id, for the suggested variable name). A header whose
// value is empty, or only an Authorization scheme ("Bearer" and nothing
// after it, which is what a shell leaves of "Bearer ${UNSET}"), and an
// empty value of a secret-looking env variable, are an error naming the
// field. A secret-looking value written in clear, and a ${VAR} that is not
// set in this process's environment, are warnings: the entry is still
// valid. Secret-looking is what import moves out of a file: a name that
// says token, key, secret, password, auth, credential, cookie or session,
// or a value with an Authorization scheme.
func (c *ServerConfig) CheckSecrets(id string) ([]SecretWarning, error) {
	var warns []SecretWarning
	for _, k := range sortedKeys(c.Headers) {
		v := strings.TrimSpace(c.Headers[k])
		field := "headers." + k
		if v == "" || bareScheme().MatchString(v) {
			return nil, &FieldError{Field: field, Problem: fmt.Sprintf("no value%s; if it comes from a variable, quote it so the host expands it when it connects: -H '%s: %s'",
				schemeNote(v), k, strings.TrimSpace(v+" ${"+headerVar(id, k)+"}"))}
		}
		if strings.Contains(v, "${") {
			warns = append(warns, unsetRefs(field, v)...)
			continue
		}
		scheme := authScheme().FindStringSubmatch(v)
		if scheme == nil && !secretName().MatchString(k) {
			continue
		}
		suggest := "${" + headerVar(id, k) + "}"
		if scheme != nil {
			suggest = scheme[1] + " " + suggest
		}
		warns = append(warns, SecretWarning{Field: field, Message: fmt.Sprintf(
			"the header %s holds a secret in clear, and it goes into the config file as it is; keep it in the environment instead: -H '%s: %s' (single quotes: the host expands it when it connects)",
			k, k, suggest)})
	}
	for _, k := range sortedKeys(c.Env) {
		v := c.Env[k]
		field := "env." + k
		secret := secretName().MatchString(k)
		switch {
		case v == "" && secret:
			return nil, &FieldError{Field: field, Problem: fmt.Sprintf("empty value; if it comes from a variable, quote it so the host expands it when it connects: -e '%s=${%s}'", k, k)}
		case strings.Contains(v, "${"):
			warns = append(warns, unsetRefs(field, v)...)
		case secret && v != "":
			warns = append(warns, SecretWarning{Field: field, Message: fmt.Sprintf(
				"%s holds a secret in clear, and it goes into the config file as it is; keep it in the environment instead: -e '%s=${%s}' (single quotes: the host expands it when it connects)",
				k, k, k)})
		}
	}
	return warns, nil
}

// headerVar is the variable suggested for header k of server id: the
// server's token for Authorization (GITHUB_TOKEN), else named after both.
func headerVar(id, k string) string {
	if strings.EqualFold(k, "Authorization") {
		return secretVar(id, "token")
	}
	return secretVar(id, k)
}

// bareScheme matches an Authorization scheme with no credential after it.
var bareScheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(bearer|basic|token|bot|dpop)$`) })

// schemeNote says what is left of a value that is only a scheme.
func schemeNote(v string) string {
	if v == "" {
		return ""
	}
	return fmt.Sprintf(" after %q", v)
}

// varRef finds the ${VAR} references of a value ($${ is a literal "${").
var varRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^$])\$\{([A-Za-z_][A-Za-z0-9_]*)\}`) })

// unsetRefs warns about each variable v references that is not set here.
func unsetRefs(field, v string) []SecretWarning {
	var out []SecretWarning
	for _, m := range varRef().FindAllStringSubmatch(v, -1) {
		if _, ok := os.LookupEnv(m[2]); !ok {
			out = append(out, SecretWarning{Field: field, Message: fmt.Sprintf(
				"%s is not set here: %s reads it when the server connects, so set it in the environment the host runs in", m[2], field)})
		}
	}
	return out
}
