package protocol

// EnvironmentNames says which environment variables a stdio server gets,
// by name only: it does not inherit the host's environment. Names may come
// from a project file: escape them before display.
type EnvironmentNames struct {
	// Base are the variables of the base set (PATH, HOME, the locale, the
	// temp directory, …) the host's environment has.
	Base []string `json:"base"`
	// Env are the names the server's "env" sets.
	Env []string `json:"env,omitempty"`
	// EnvVars are the names of "env_vars" passed through from the host's
	// environment.
	EnvVars []string `json:"env_vars,omitempty"`
	// Unset are the names of "env_vars" the host's environment lacks (not
	// passed).
	Unset []string `json:"unset,omitempty"`
}
