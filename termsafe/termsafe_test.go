package termsafe

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	long := strings.Repeat("a", DefaultLineMax+10)
	tests := []struct {
		name  string
		in    string
		multi bool
		max   int
		want  string
	}{
		{"plain", "read_readme", false, 0, "read_readme"},
		{"empty", "", false, 0, ""},
		{"unicode kept", "Grüße, 世界 👋 ❤️", false, 0, "Grüße, 世界 👋 ❤️"},
		{"fffd kept", "a\uFFFDb", false, 0, "a\uFFFDb"},

		// The attacks of issue 11.
		{"cursor up and erase line", "\x1b[1A\x1b[2K  tool:   read_readme", false, 0, "  tool:   read_readme"},
		{"OSC title BEL", "\x1b]0;PWNED\x07delete_everything", false, 0, "delete_everything"},
		{"OSC title ST", "\x1b]2;PWNED\x1b\\x", false, 0, "x"},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil/\x1b\\click\x1b]8;;\x1b\\", false, 0, "click"},
		{"OSC 52 clipboard", "a\x1b]52;c;cm0gLXJmIH4=\x07b", false, 0, "ab"},
		{"bidi override", "txt.\u202Eexe", false, 0, "txt.exe"},
		{"bidi isolates and marks", "\u2066a\u2067b\u2068c\u2069\u200E\u200F\u061Cd\u202A\u202B\u202C\u202D", false, 0, "abcd"},

		// C0, DEL, C1.
		{"BEL and backspace", "ab\x07\x08c", false, 0, "abc"},
		{"DEL", "a\x7fb", false, 0, "ab"},
		{"NUL", "a\x00b", false, 0, "ab"},
		{"C1 controls", "a\u0085b\u008dc\u0080d", false, 0, "abcd"},
		{"newline single-line", "a\nb\tc", false, 0, "a b c"},
		{"CRLF single-line", "a\r\nb", false, 0, "a b"},
		{"lone CR single-line", "safe\rEVIL", false, 0, "safe EVIL"},
		{"newline multi-line", "a\nb\tc", true, 0, "a\nb\tc"},
		{"CRLF multi-line", "a\r\nb\r\n", true, 0, "a\nb\n"},
		{"lone CR multi-line", "10%\r20%", true, 0, "10%\n20%"},
		{"line separators", "a\u2028b\u2029c", true, 0, "a\nb\nc"},
		{"vertical tab and form feed", "a\vb\fc", true, 0, "abc"},

		// Escape sequences dropped whole.
		{"SGR", "\x1b[31;1mred\x1b[0m", false, 0, "red"},
		{"private CSI", "\x1b[?1049h\x1b[?25lx", false, 0, "x"},
		{"CSI with intermediate", "\x1b[1 qx", false, 0, "x"},
		{"8-bit CSI", "a\u009b2Jb", false, 0, "ab"},
		{"8-bit OSC with 8-bit ST", "a\u009d0;T\u009cb", false, 0, "ab"},
		{"8-bit OSC with BEL", "a\u009d0;T\x07b", false, 0, "ab"},
		{"DCS", "a\x1bP1$r0m\x1b\\b", false, 0, "ab"},
		{"APC", "a\x1b_Gf=100;AAAA\x1b\\b", false, 0, "ab"},
		{"PM and SOS", "a\x1b^pm\x1b\\b\x1bXsos\x1b\\c", false, 0, "abc"},
		{"8-bit DCS APC PM SOS", "a\u0090x\u009cb\u009fy\u009cc\u009ez\u009cd\u0098w\u009ce", false, 0, "abcde"},
		{"unterminated OSC", "a\x1b]0;PWNED and the rest", false, 0, "a"},
		{"unterminated CSI", "a\x1b[12;", false, 0, "a"},
		{"lone ESC at end", "a\x1b", false, 0, "a"},
		{"nF sequence", "a\x1b b", false, 0, "a"},
		{"ESC then newline", "a\x1b\nb", true, 0, "a\nb"},
		{"ESC then non-ASCII", "a\x1bé", false, 0, "aé"},
		{"ESC ESC", "a\x1b\x1b[2Jb", false, 0, "ab"},
		{"single-byte escapes", "\x1b7a\x1b8\x1bcb\x1bMc", false, 0, "abc"},
		{"charset designation", "\x1b(0lqk\x1b(B", false, 0, "lqk"},
		{"CSI aborted by newline", "a\x1b[1\nb", true, 0, "a\nb"},
		{"OSC aborted by ESC", "a\x1b]0;x\x1b[2Jb", false, 0, "ab"},
		{"OSC cancelled by CAN", "a\x1b]0;x\x18b", false, 0, "ab"},
		{"raw 0x9b is invalid UTF-8", "a\x9b2Jb", false, 0, "a\uFFFD2Jb"},

		// Invisible format characters.
		{"zero width", "a\u200Bb\u200Cc\u200Dd\u2060e\u2061\u2062\u2063\u2064f\uFEFFg", false, 0, "abcdefg"},
		{"soft hyphen", "de\u00ADlete", false, 0, "delete"},
		{"tag characters", "ok\U000E0001\U000E0069\U000E0067\U000E006E\U000E007F", false, 0, "ok"},
		{"fillers", "a\u3164b\u115Fc\uFFA0d\u034Fe", false, 0, "abcde"},
		{"variation selectors smuggling", "x\uFE00\uFE01\U000E0100\U000E01EF", false, 0, "x\uFE00"},
		{"variation selector alone", "\uFE0F\U000E0100a", false, 0, "a"},
		{"variation selector after space", "a \uFE0Fb", false, 0, "a b"},

		// Invalid UTF-8.
		{"invalid byte", "a\xffb", false, 0, "a\uFFFDb"},
		{"invalid run", "a\xff\xfe\xfdb", false, 0, "a\uFFFDb"},
		{"truncated rune", "a\xe4\xb8", false, 0, "a\uFFFD"},
		{"surrogate", "a\xed\xa0\x80b", false, 0, "a\uFFFDb"},

		// Bounds.
		{"default line bound", long, false, 0, strings.Repeat("a", DefaultLineMax-1) + Ellipsis},
		{"max", "abcdefgh", false, 5, "abcd" + Ellipsis},
		{"exactly max", "abcde", false, 5, "abcde"},
		{"max runes not bytes", "äöüßé", false, 5, "äöüßé"},
		{"max runes cut", "äöüßéx", false, 5, "äöüß" + Ellipsis},
		{"max 1", "ab", false, 1, Ellipsis},
		{"dropped tail does not count", "abcde\x1b[0m\u202E", false, 5, "abcde"},
		{"no bound", long + long, false, -1, long + long},
		{"multi-line bound", "a\nb\nc\nd", true, 3, "a\n" + Ellipsis},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sanitize(tt.in, Options{MultiLine: tt.multi, Max: tt.max})
			if got != tt.want {
				t.Errorf("Sanitize(%q, multi=%v, max=%d) = %q, want %q", tt.in, tt.multi, tt.max, got, tt.want)
			}
		})
	}
}

func TestVariants(t *testing.T) {
	in := "a\nb\x1b]0;T\x07\u202E" + strings.Repeat("x", DefaultTextMax)
	if got := Line(in); utf8.RuneCountInString(got) != DefaultLineMax || !strings.HasPrefix(got, "a b") {
		t.Errorf("Line: %d runes, starts %q", utf8.RuneCountInString(got), got[:5])
	}
	if got := LineMax(in, 4); got != "a b"+Ellipsis {
		t.Errorf("LineMax = %q", got)
	}
	if got := Text(in); utf8.RuneCountInString(got) != DefaultTextMax || !strings.HasPrefix(got, "a\nb") || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("Text: %d runes", utf8.RuneCountInString(got))
	}
	if got := TextMax(in, 4); got != "a\nb"+Ellipsis {
		t.Errorf("TextMax = %q", got)
	}
	if got := Strip(in); got != "a b"+strings.Repeat("x", DefaultTextMax) {
		t.Errorf("Strip cut or kept a control: %d bytes", len(got))
	}
}

func TestPlainIsReturnedAsIs(t *testing.T) {
	s := "read_readme: Read the README file."
	if got := Line(s); got != s {
		t.Fatalf("Line(%q) = %q", s, got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = Line(s) }); n != 0 {
		t.Errorf("Line of plain ASCII allocates %v times", n)
	}
}

func TestIsUnsafe(t *testing.T) {
	for _, r := range []rune{0, 7, 0x1b, 0x7f, 0x80, 0x9b, 0x9f, 0x202E, 0x2066, 0x200B, 0xFEFF, 0xE0041, 0x00AD, 0x061C, 0x3164} {
		if !IsUnsafe(r) {
			t.Errorf("IsUnsafe(%U) = false", r)
		}
	}
	for _, r := range []rune{'\n', '\t', ' ', 'a', '~', 0xA0, 'é', '世', 0x1F44B, 0xFFFD, 0xFE0F} {
		if IsUnsafe(r) {
			t.Errorf("IsUnsafe(%U) = true", r)
		}
	}
}

// checkSafe reports what in out could act on a terminal or hide text.
func checkSafe(t *testing.T, in, out string, o Options) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", in, out)
	}
	max := o.Max
	if max == 0 {
		max = DefaultLineMax
		if o.MultiLine {
			max = DefaultTextMax
		}
	}
	if n := utf8.RuneCountInString(out); max > 0 && n > max {
		t.Fatalf("Sanitize(%q) has %d runes, max %d", in, n, max)
	}
	var prev rune = -1
	for _, r := range out {
		switch {
		case r == 0x1b || r == 0x07 || (r >= 0x80 && r <= 0x9f) || r < 0x20 && r != '\n' && r != '\t':
			t.Fatalf("Sanitize(%q) = %q: control %U", in, out, r)
		case !o.MultiLine && (r == '\n' || r == '\t'):
			t.Fatalf("Sanitize(%q) = %q: %U in a single line", in, out, r)
		case unicode.Is(unicode.Cf, r) || IsUnsafe(r):
			t.Fatalf("Sanitize(%q) = %q: format or invisible character %U", in, out, r)
		case unicode.Is(unicode.Bidi_Control, r):
			t.Fatalf("Sanitize(%q) = %q: bidi control %U", in, out, r)
		case isVariationSelector(r) && (prev < 0 || isVariationSelector(prev) || unicode.IsSpace(prev)):
			t.Fatalf("Sanitize(%q) = %q: variation selector %U after %U", in, out, r, prev)
		}
		prev = r
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b]0;PWNED\x07", "\x1b[1A\x1b[2K  tool:   read_readme", "a\u202Eb", "\u009b31m",
		"\x1bP\x1b\\", "\xff\xfe", "x\uFE0F\uFE0F", "\r\n\t", "\U000E0041", strings.Repeat("é", 300),
	} {
		f.Add(s, false, 0)
		f.Add(s, true, 7)
	}
	f.Fuzz(func(t *testing.T, s string, multi bool, max int) {
		if max > 1<<16 || max < -1 {
			max %= 1 << 16
		}
		o := Options{MultiLine: multi, Max: max}
		out := Sanitize(s, o)
		checkSafe(t, s, out, o)
		// Sanitizing twice changes nothing more (a cut string keeps its
		// ellipsis and fits).
		if again := Sanitize(out, o); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}
