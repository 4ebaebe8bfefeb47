//go:build convertcheck

package ir

import "fmt"

// checkUses verifies, in builds tagged convertcheck, that the use index
// of f holds every use: each input of each node of f, and each result.
// A pass writing Node.Inputs or Function.Results directly while uses are
// tracked fails here instead of converting silently wrong.
func checkUses(f *Function) {
	u := f.uses
	if u == nil || len(f.Nodes) > 2000 {
		return // checking at every replacement would make big graphs quadratic
	}
	for _, n := range f.Nodes {
		for i, in := range n.Inputs {
			if in == nil {
				continue
			}
			found := false
			for _, r := range u.usersOf(in) {
				if r.Node == n && r.Slot == i {
					found = true
					break
				}
			}
			if !found {
				panic(fmt.Sprintf("ir: use index of %s misses input %d (%q) of node %s", f.Where(), i, in.Name, n))
			}
		}
	}
	count := map[*Value]int{}
	for _, r := range f.Results {
		count[r]++
	}
	for v, k := range count {
		if u.resultsOf(v) != k {
			panic(fmt.Sprintf("ir: use index of %s counts result %q %d times, it is %d", f.Where(), v.Name, u.resultsOf(v), k))
		}
	}
}
