// Hand-written, not generated: the types of versions.js.

export { PROTOCOL_VERSION } from "./index.js";

/**
 * Every UI protocol version this package speaks, newest first. The
 * generated client sends the first as initialize's protocol_version.
 */
export declare const PROTOCOL_VERSIONS: readonly string[];

/** This package's own version (package.json "version"). */
export declare const PACKAGE_VERSION: string;
