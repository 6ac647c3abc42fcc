package experiment

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rgnn/rgnn/experiment/store"
	"github.com/rgnn/rgnn/task"
)

// PlanRow is one run of a plan: what it is and whether the store has it.
type PlanRow struct {
	Key    string       `json:"key"`
	Kind   string       `json:"kind"`
	Block  string       `json:"block"`
	Done   bool         `json:"done"`
	Params store.Params `json:"params"`
	label  string
}

// Plan lists an experiment's runs with their state in a store (what
// `rgnn run --dry-run` shows).
type Plan []PlanRow

// NewPlan looks the runs up in st (nil: a store that does not exist yet,
// which has none of them).
func NewPlan(ctx context.Context, st *store.Store, runs []Run) (Plan, error) {
	keys := make([]string, len(runs))
	for i, r := range runs {
		keys[i] = r.Key
	}
	done := map[string]bool{}
	if st != nil {
		var err error
		if done, err = st.Has(ctx, keys); err != nil {
			return nil, err
		}
	}
	p := make(Plan, len(runs))
	for i, r := range runs {
		p[i] = PlanRow{Key: r.Key, Kind: r.Kind, Block: r.Block, Done: done[r.Key], Params: r.Params, label: r.Label()}
	}
	return p, nil
}

// Done counts the runs the store has.
func (p Plan) Done() int {
	n := 0
	for _, r := range p {
		if r.Done {
			n++
		}
	}
	return n
}

// WriteText prints the plan as a table.
func (p Plan) WriteText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tSTATE\tBLOCK\tRUN")
	for _, r := range p {
		state := "todo"
		if r.Done {
			state = "done"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Key, state, r.Block, r.label)
	}
	tw.Flush()
}

// KindInfo describes a kind and its parameters.
type KindInfo struct {
	Name   string  `json:"name"`
	Doc    string  `json:"doc"`
	Params []Param `json:"params"`
}

// Infos describes every kind, sorted by name.
func (r *Kinds) Infos() []KindInfo {
	var out []KindInfo
	for _, n := range r.Names() {
		k, _ := r.Lookup(n)
		out = append(out, KindInfo{k.Name, k.Doc, k.Params()})
	}
	return out
}

// WriteText prints every kind with its parameters, defaults and help.
func (r *Kinds) WriteText(w io.Writer) {
	for _, k := range r.Infos() {
		fmt.Fprintf(w, "%s: %s\n", k.Name, k.Doc)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, p := range k.Params {
			def := task.Format(p.Default)
			if def == "" {
				def = `""`
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", p.Name, def, p.Help)
		}
		tw.Flush()
	}
}
