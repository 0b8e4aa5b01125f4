package adapter

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAppendJSONMatchesEncodingJSON: for random decoded JSON values the
// fast encoder gives exactly encoding/json's bytes (HTML escaping off).
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"a", "Z", "<", ">", "&", "\"", "\\", "\n", "\t", "\x01", "\x1f", "\u2028", "\u2029", "é", "漢", "🙂", "\xff", "\xc3", " ", "$ref", "/"}
	str := func() string {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 1.5, 1e-7, 1.234e-9, 1e21, 1e20, 123456789012345678, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1, 1e-6}
	var value func(depth int) any
	value = func(depth int) any {
		switch k := r.IntN(7); {
		case depth > 3 || k == 0:
			return str()
		case k == 1:
			return floats[r.IntN(len(floats))] * float64(1-2*r.IntN(2))
		case k == 2:
			return r.IntN(2) == 0
		case k == 3 && r.IntN(2) == 0:
			return nil
		case k == 3:
			return r.IntN(2000) - 1000
		case k == 4:
			a := make([]any, r.IntN(4))
			for i := range a {
				a[i] = value(depth + 1)
			}
			return a
		default:
			m := map[string]any{}
			for range r.IntN(5) {
				m[str()] = value(depth + 1)
			}
			return m
		}
	}
	var keys [][]string
	for i := range 3000 {
		v := value(0)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSpace(buf.Bytes())
		got, ok := appendJSON(nil, v, &keys, 0)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("case %d: %#v\n got %s (ok=%v)\nwant %s", i, v, got, ok, want)
		}
	}
	for _, bad := range []any{math.NaN(), math.Inf(1), struct{}{}, json.Number("x"), map[string]any{"a": []any{func() {}}}} {
		if _, ok := appendJSON(nil, bad, &keys, 0); ok {
			t.Errorf("%#v encoded", bad)
		}
	}
}
