//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// grants collects Landlock path rules.
type grants struct {
	rules []landlock.Rule
}

// add grants rights on one existing path: file rights only for a file,
// nothing when it is gone by the time the ruleset is built (an entry of a
// shared directory such as /tmp may vanish between the walk and the
// ruleset's open: a compiler's temp file stopped servers from starting),
// Refer (moving files between granted directories) for a writable
// directory, IOCTL for writable devices.
func (g *grants) add(path string, write bool, fi os.FileInfo) {
	switch {
	case fi.IsDir() && write:
		r := landlock.RWDirs(path).WithRefer()
		if filepath.Dir(path) == "/dev" {
			r = r.WithIoctlDev()
		}
		g.rules = append(g.rules, r.IgnoreIfMissing())
	case fi.IsDir():
		g.rules = append(g.rules, landlock.RODirs(path).IgnoreIfMissing())
	case write:
		r := landlock.RWFiles(path)
		if fi.Mode()&os.ModeDevice != 0 {
			r = r.WithIoctlDev()
		}
		g.rules = append(g.rules, r.IgnoreIfMissing())
	default:
		g.rules = append(g.rules, landlock.ROFiles(path).IgnoreIfMissing())
	}
}

// fsRules turns eff's reads and writes into Landlock rules. Landlock only
// grants, and a grant holds for a whole directory tree, so "everything
// but the secret places" is built by walking down from each granted root
// to the secret places only: every other entry on the way is granted as a
// whole, the directories on the way get only the right to list them, and
// the secret places get nothing. Entries created later in those
// directories are not readable (docs/SANDBOX.md).
func fsRules(eff *Effective) ([]landlock.Rule, error) {
	g := &grants{}
	for _, r := range eff.Read {
		if err := g.walk(r, false, eff.Deny); err != nil {
			return nil, err
		}
	}
	writeExcl := append(slices.Clone(eff.Deny), eff.Protect...)
	for _, w := range eff.Write {
		if err := g.walk(w, true, writeExcl); err != nil {
			return nil, err
		}
	}
	return g.rules, nil
}

// walk grants root unless it is excluded; when excluded places lie under
// it, it grants root's other entries instead, recursing towards them.
func (g *grants) walk(root string, write bool, excl []string) error {
	root = filepath.Clean(root)
	fi, err := os.Stat(root)
	if err != nil {
		return nil // a missing place grants nothing
	}
	if slices.Contains(excl, root) {
		return nil
	}
	var inside []string
	for _, x := range excl {
		if x != root && within(x, root) {
			inside = append(inside, x)
		}
	}
	if len(inside) == 0 || !fi.IsDir() {
		g.add(root, write, fi)
		return nil
	}
	return g.descend(root, write, excl, inside)
}

// descend grants dir's entries but the excluded ones, recursing into the
// entries that hold excluded places. dir itself gets nothing: Landlock's
// right to list a directory holds for its whole tree, so listing dir
// would list every name below it, the excluded places' included.
func (g *grants) descend(dir string, write bool, excl, inside []string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unreadable to us: nothing to grant
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if slices.Contains(excl, p) {
			continue
		}
		if e.Type()&os.ModeSymlink != 0 {
			// A link needs no grant to be followed; its target is
			// granted (or not) where it lives. Granting the link
			// would grant its target, perhaps a secret place.
			continue
		}
		holds := false
		for _, x := range inside {
			if within(x, p) {
				holds = true
				break
			}
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if holds && fi.IsDir() {
			if err := g.descend(p, write, excl, inside); err != nil {
				return err
			}
			continue
		}
		g.add(p, write, fi)
	}
	return nil
}
