package certify

import (
	"fmt"
	"slices"
)

// Metrics are the aggregate certificate measures of the paper (and of the
// reference's calc_certification_ratio) over a set of nodes.
type Metrics struct {
	Nodes   int // evaluated nodes (e.g. the test set)
	Correct int // nodes whose smoothed prediction equals the label
	// SmoothedAccuracy = Correct/Nodes = R(0, 0).
	SmoothedAccuracy float64
	// AccumulatedCertifications = Σ_{ra,rd} R(ra, rd) − R(0, 0) (paper Eq. 8).
	AccumulatedCertifications float64
	// AvgRadiusAdd / AvgRadiusDel: mean over all nodes of the largest
	// certified addition radius (rd = 0) / deletion radius (ra = 0), 0 for
	// misclassified or uncertified nodes (the reference's
	// avg_cert_radius_ra(rd=0) / avg_cert_radius_rd(ra=0)).
	AvgRadiusAdd, AvgRadiusDel float64
	// AvgRadiusAddCorrect / AvgRadiusDelCorrect: the same means over the
	// correctly classified nodes only (paper Eq. 9, r̄_a and r̄_d).
	AvgRadiusAddCorrect, AvgRadiusDelCorrect float64
	// Ratio[ra][rd] = R(ra, rd): fraction of nodes that are correctly
	// classified and certified at (ra, rd); Ratio[0][0] = SmoothedAccuracy.
	Ratio [][]float64
}

// checkNodes validates labels and node indices against the certificate.
func (c *Certificate) checkNodes(labels []int32, nodes []int) error {
	if len(labels) != c.Nodes {
		return fmt.Errorf("certify: %d labels for %d nodes", len(labels), c.Nodes)
	}
	if len(nodes) == 0 {
		return fmt.Errorf("certify: no nodes to evaluate")
	}
	for _, v := range nodes {
		if v < 0 || v >= c.Nodes {
			return fmt.Errorf("certify: node %d outside [0, %d)", v, c.Nodes)
		}
	}
	return nil
}

// Metrics aggregates the certificate over nodes (e.g. the test set) with
// their true labels (labels has one entry per node of the graph).
func (c *Certificate) Metrics(labels []int32, nodes []int) (Metrics, error) {
	if err := c.checkNodes(labels, nodes); err != nil {
		return Metrics{}, err
	}
	m := Metrics{Nodes: len(nodes), Ratio: make([][]float64, c.nra)}
	counts := make([]int, c.nra*c.nrd)
	sumRA, sumRD := 0, 0
	for _, v := range nodes {
		if c.Pred[v] != int(labels[v]) {
			continue
		}
		m.Correct++
		for k := 1; k < len(counts); k++ {
			if c.Certified(v, k/c.nrd, k%c.nrd) {
				counts[k]++
			}
		}
		ra, rd := c.Radius(v)
		sumRA += ra
		sumRD += rd
	}
	nf := float64(len(nodes))
	counts[0] = m.Correct
	for ra := range c.nra {
		m.Ratio[ra] = make([]float64, c.nrd)
		for rd := range c.nrd {
			m.Ratio[ra][rd] = float64(counts[ra*c.nrd+rd]) / nf
			m.AccumulatedCertifications += m.Ratio[ra][rd]
		}
	}
	m.SmoothedAccuracy = m.Ratio[0][0]
	m.AccumulatedCertifications -= m.SmoothedAccuracy
	m.AvgRadiusAdd = float64(sumRA) / nf
	m.AvgRadiusDel = float64(sumRD) / nf
	if m.Correct > 0 {
		m.AvgRadiusAddCorrect = float64(sumRA) / float64(m.Correct)
		m.AvgRadiusDelCorrect = float64(sumRD) / float64(m.Correct)
	}
	return m, nil
}

// DegreeBin is one bin of the accumulated certifications over node degree
// (paper Fig. 5 and Fig. 10).
type DegreeBin struct {
	MinDegree, MaxDegree int // inclusive degree range of the bin's nodes
	Metrics
}

// QuantileDegreeEdges returns the lower edges of (at most) k equal-frequency
// degree bins over the given nodes: the degrees at the ranks ⌊b·m/k⌋,
// b = 0..k−1, of the m nodes sorted by degree, duplicates dropped (so heavy
// ties, e.g. many nodes of degree 1, merge bins and fewer than k remain).
func QuantileDegreeEdges(degrees []int, nodes []int, k int) []int {
	if k < 1 || len(nodes) == 0 {
		return nil
	}
	d := make([]int, len(nodes))
	for i, v := range nodes {
		d[i] = degrees[v]
	}
	slices.Sort(d)
	var edges []int
	for b := range k {
		e := d[b*len(d)/k]
		if len(edges) == 0 || e > edges[len(edges)-1] {
			edges = append(edges, e)
		}
	}
	return edges
}

// DegreeTable aggregates the certificate per degree bin: bin b holds the
// nodes with edges[b] ≤ degree < edges[b+1] (the last bin is open above;
// nodes below edges[0] are left out). degrees has one entry per node of the
// graph, e.g. the clean graph's degrees without self loops. Empty bins are
// omitted.
func (c *Certificate) DegreeTable(labels []int32, nodes []int, degrees []int, edges []int) ([]DegreeBin, error) {
	if len(degrees) != c.Nodes {
		return nil, fmt.Errorf("certify: %d degrees for %d nodes", len(degrees), c.Nodes)
	}
	if !slices.IsSorted(edges) || len(edges) == 0 {
		return nil, fmt.Errorf("certify: degree bin edges %v must be non-empty and ascending", edges)
	}
	groups := make([][]int, len(edges))
	for _, v := range nodes {
		if v < 0 || v >= c.Nodes {
			return nil, fmt.Errorf("certify: node %d outside [0, %d)", v, c.Nodes)
		}
		b := sortSearchLE(edges, degrees[v])
		if b >= 0 {
			groups[b] = append(groups[b], v)
		}
	}
	var out []DegreeBin
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		m, err := c.Metrics(labels, g)
		if err != nil {
			return nil, err
		}
		lo, hi := degrees[g[0]], degrees[g[0]]
		for _, v := range g {
			lo, hi = min(lo, degrees[v]), max(hi, degrees[v])
		}
		out = append(out, DegreeBin{MinDegree: lo, MaxDegree: hi, Metrics: m})
	}
	return out, nil
}

// sortSearchLE returns the last index b with edges[b] ≤ x, or −1.
func sortSearchLE(edges []int, x int) int {
	b := -1
	for i, e := range edges {
		if e <= x {
			b = i
		}
	}
	return b
}
