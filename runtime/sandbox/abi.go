package sandbox

// Landlock ABI versions that bring what a policy uses.
const (
	abiFS       = 3  // files, including truncation
	abiTCP      = 4  // TCP bind and connect
	abiScope    = 6  // signals and abstract UNIX sockets
	abiUnix     = 9  // connecting to pathname UNIX sockets
	abiNewest   = 11 // the newest go-landlock v0.11.2 knows
	abiNoKernel = 0
)
