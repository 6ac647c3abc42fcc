package experiment

import "github.com/rgnn/rgnn/experiment/store"

// dependencies lists the kinds of the runs r depends on.
func dependencies(r Run) []string {
	switch r.Kind {
	case "eval", "certify":
		return []string{"train"}
	case "attack":
		if b, _ := r.Params["adaptive"].(bool); b {
			return []string{"train"}
		}
		return []string{"train", "perturb"}
	}
	return nil
}

// projectKind returns p projected onto kind's parameters.
func projectKind(r *Kinds, kind string, p store.Params) (store.Params, error) {
	k, _ := r.Lookup(kind)
	return r.project(k, p)
}
