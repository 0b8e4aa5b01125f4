package policy

// writableNote is empty on Windows: who may write a file there is an ACL
// question the mode bits do not answer, and %ProgramData% is protected
// by its default ACLs.
func writableNote(string) string { return "" }
