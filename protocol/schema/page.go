package schema

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// PagePath is where [Page] writes its module, from the repository's root.
const PagePath = "web/static/protocol.js"

// Page generates host web's protocol module (web/static/protocol.js) from
// the schema document doc: a browser ES module with the TypeScript
// client's tables (the same bytes as in index.js), the fields of every
// request's params and of every answer to a runtime request, the
// notification names, and bindMethods, which gives the page one function
// per request of the UI that checks its params against the schema before
// sending them. The page has no method name, field list or error code of
// its own, so it cannot drift from the schema unseen.
func Page(doc []byte) ([]byte, error) {
	d, err := parseDocument(doc)
	if err != nil {
		return nil, err
	}
	var j strings.Builder
	j.WriteString(generatedHeader)
	j.WriteString("// host web's protocol module: the tables of the TypeScript client\n// (clients/typescript/index.js) and checks of what the page sends.\n\n")
	j.WriteString(jsTables(d))
	fields := func(title, name string, keep func(Method) bool, def func(Method) string) {
		fmt.Fprintf(&j, "\n/** %s */\nexport const %s = Object.freeze({\n", title, name)
		for _, m := range d.Methods {
			if !keep(m) {
				continue
			}
			props, required := objectFields(d.Defs[def(m)])
			fmt.Fprintf(&j, "  %q: { fields: %s, required: %s },\n", m.Name, jsStrings(props), jsStrings(required))
		}
		j.WriteString("});\n")
	}
	fields("The top-level fields of each request's params, and the required ones.", "PARAMS",
		func(m Method) bool { return m.Direction == "ui_to_runtime" && !m.Notification },
		func(m Method) string { return m.Params })
	fields("The top-level fields of the answer to each request of the runtime, and the required ones.", "ANSWERS",
		func(m Method) bool { return m.Direction == "runtime_to_ui" && !m.Notification },
		func(m Method) string { return m.Result })
	j.WriteString("\n/** The notifications a UI receives, by name. */\nexport const NOTIFICATIONS = Object.freeze({\n")
	for _, m := range d.Methods {
		if m.Notification && m.Direction != "ui_to_runtime" {
			fmt.Fprintf(&j, "  %s: %q,\n", methodName(m.Name), m.Name)
		}
	}
	j.WriteString("});\n\n/** The function name of each request the page may send (initialize and shutdown are the bridge's). */\nexport const REQUESTS = Object.freeze({\n")
	for _, m := range d.Methods {
		if m.Direction == "ui_to_runtime" && !m.Notification && m.Name != "initialize" && m.Name != "shutdown" {
			fmt.Fprintf(&j, "  %s: %q,\n", methodName(m.Name), m.Name)
		}
	}
	j.WriteString("});\n")
	j.WriteString(pageCore)
	return []byte(j.String()), nil
}

// objectFields lists the properties of an object schema (in their order)
// and its required ones.
func objectFields(s *jsonschema.Schema) (props, required []string) {
	if s == nil {
		return nil, nil
	}
	props = s.PropertyOrder
	if len(props) == 0 {
		for k := range s.Properties {
			props = append(props, k)
		}
		slices.Sort(props)
	}
	return props, s.Required
}

// jsStrings writes a JavaScript array of strings.
func jsStrings(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// pageCore is the hand-written part of protocol.js.
const pageCore = `
/**
 * checkFields throws when obj, the params of a request or the answer to
 * one (table PARAMS or ANSWERS), has a field the schema does not know or
 * lacks a required one: the page and the schema have drifted apart.
 */
export function checkFields(table, method, obj) {
  const shape = table[method];
  if (!shape) throw new Error(method + ": not a method of protocol " + PROTOCOL_VERSION);
  const o = obj === undefined || obj === null ? {} : obj;
  for (const k of Object.keys(o)) {
    if (!shape.fields.includes(k)) throw new Error(method + ": the schema has no field " + JSON.stringify(k));
  }
  for (const k of shape.required) {
    if (o[k] === undefined) throw new Error(method + ": the required field " + JSON.stringify(k) + " is missing");
  }
  return obj;
}

/**
 * bindMethods returns one function per request of REQUESTS (mcpList,
 * toolCall, runStart, …); each checks its params against PARAMS and then
 * returns send(method, params).
 */
export function bindMethods(send) {
  const m = {};
  for (const [fn, method] of Object.entries(REQUESTS)) {
    m[fn] = async (params) => send(method, checkFields(PARAMS, method, params));
  }
  return Object.freeze(m);
}
`
