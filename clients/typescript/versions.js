// Hand-written, not generated: which protocol versions this package
// speaks, and its own version. package.json says the same under
// "mcpHost"."protocolVersions" and "version"; test/client.test.js checks
// that the three agree.

import { PROTOCOL_VERSION } from "./index.js";

export { PROTOCOL_VERSION };

/**
 * Every UI protocol version this package speaks, newest first. The
 * generated client sends the first as initialize's protocol_version.
 */
export const PROTOCOL_VERSIONS = Object.freeze([PROTOCOL_VERSION]);

/** This package's own version (package.json "version"). */
export const PACKAGE_VERSION = "0.2.0";
