package protocol

// MaxElicitAsks bounds how often the runtime asks the UI for one form-mode
// elicitation: after that many answers that do not match the requested
// schema, the server is told the user cancelled, and a log warning names
// the field that kept failing.
const MaxElicitAsks = 3

// ElicitFieldError says why one field of an elicitation answer did not
// match the requested schema ([ElicitParams.Invalid]).
type ElicitFieldError struct {
	// Field is the property name in the requested schema ("" when the
	// answer as a whole is wrong).
	Field string `json:"field"`
	// Message says what the field needs, in words for the user ("must be
	// at most 100"); it may quote the schema (enum values, limits), which
	// is the server's text.
	Message string `json:"message"`
}
