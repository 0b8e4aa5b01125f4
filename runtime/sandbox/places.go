package sandbox

// secretPlaces are the places under the home directory that hold
// credentials or private data. Reads are by grant, so these are a second
// wall: a grant above one (say "~") still leaves it out, as it does the
// host's own state (see [Context.HostPaths]).
var secretPlaces = []string{
	// keys and cloud credentials
	".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube",
	".docker/config.json", ".netrc", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc",
	".git-credentials", ".config/git/credentials", ".config/gh", ".config/hub",
	".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	".terraform.d/credentials.tfrc.json", ".vault-token", ".pgpass", ".my.cnf",
	".config/doctl", ".oci", ".config/op", ".config/hcloud",
	// keyrings and password managers
	".local/share/keyrings", ".password-store", ".config/1Password",
	".config/Bitwarden", ".config/keepassxc", ".local/share/KeePassXC",
	// browser and mail profiles
	".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium",
	".config/BraveSoftware", ".config/microsoft-edge", ".config/vivaldi",
	".config/opera",
	// shell histories (commands typed with secrets in them)
	".bash_history", ".zsh_history", ".python_history", ".node_repl_history", ".psql_history",
	// macOS
	"Library/Keychains", "Library/Cookies", "Library/Safari", "Library/Mail", "Library/Messages",
	"Library/Application Support/Google/Chrome", "Library/Application Support/Firefox",
	"Library/Application Support/BraveSoftware", "Library/Application Support/Microsoft Edge",
	"Library/Application Support/1Password", "Library/Application Support/Bitwarden",
	"Library/Group Containers/2BUA8C4S2C.com.1password",
}

// systemReads are what the strict policy reads: the system's programs,
// libraries and configuration.
var systemReads = []string{
	"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt",
	"/proc", "/sys", "/dev", "/run", "/nix/store", "/snap",
	// macOS
	"/System", "/Library", "/private/etc", "/private/var/db/timezone", "/opt/homebrew",
}

// deviceWrites are the devices any server may write: the null and zero
// devices and shared memory. No terminal: see [terminals].
var deviceWrites = []string{
	"/dev/null", "/dev/zero", "/dev/full", "/dev/shm",
}

// privateRuntime are system places that hold one user's live secrets
// (XDG_RUNTIME_DIR: the session bus, the keyring's and agents' sockets,
// container registry logins): left out of the system reads.
var privateRuntime = []string{"/run/user", "/var/run/user"}

// protectedPlaces are the places under home that run code at the next
// login, shell or git command: never writable through a broader grant
// (the server's cwd being the home directory, say), only when named.
var protectedPlaces = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zprofile", ".zshenv", ".zlogin", ".xprofile", ".xinitrc", ".xsession",
	".pam_environment", ".gitconfig", ".config/git", ".config/autostart", ".config/systemd",
	".config/environment.d", ".config/fish", ".config/pip", ".config/nvim", ".vimrc",
	".bash_aliases", ".bashrc.d", ".zshrc.d", ".inputrc", ".envrc",
	"bin", ".local/bin", "go/bin", ".cargo/bin", ".local/lib", ".local/share/applications",
	".ssh", ".npmrc", ".config/direnv",
	"Library/LaunchAgents",
}
