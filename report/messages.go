package report

import (
	"encoding/json"
	"fmt"

	"github.com/rgnn/rgnn/messages"
)

// messagesFigures: the paper's Figure 1 from results of kind "messages",
// one figure per result and panel (number of perturbations).
func messagesFigures(rs []row) ([]Figure, error) {
	var out []Figure
	for _, r := range ofKind(rs, "messages") {
		b, err := json.Marshal(r.Metrics["figure"])
		if err != nil {
			return nil, err
		}
		var f messages.Figure
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("result %s: figure: %w", r.Key, err)
		}
		for i, pn := range f.Panels {
			pl, err := messages.Plot(&f, i)
			if err != nil {
				return nil, err
			}
			out = append(out, Figure{
				Name:  fmt.Sprintf("figure1_%s_%s_node%d_%d", slugify(r.Dataset), slugify(f.Model), f.Target, pn.Flips),
				Title: fmt.Sprintf("%s, %s: messages of node %d, %d perturbations (paper Fig. 1)", r.Dataset, r.Model.Label(), f.Target, pn.Flips),
				Caption: fmt.Sprintf("Output-layer messages h_w·W⁽²⁾ of node %d's neighbours (PCA of all edges' messages), clean and added by Nettack, "+
					"with the weighted mean, Medoid and Soft Medoid (T=%g) of them on the perturbed (filled) and clean (hollow) neighbourhood.",
					f.Target, f.Temperature),
				Plot: pl})
		}
	}
	return out, nil
}
