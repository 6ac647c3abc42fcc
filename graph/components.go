package graph

import "github.com/rgnn/rgnn/tensor"

// ConnectedComponents labels the (weakly) connected components of the
// graph whose edges are adj's stored nonzero entries, taken in both
// directions. Labels are 0, 1, … in ascending order of each component's
// smallest node (BFS started from nodes in ascending order, as scipy's
// connected_components numbers them); sizes[c] is the size of component c.
func ConnectedComponents(adj *tensor.CSR) (labels, sizes []int) {
	n := adj.Rows
	at, _ := adj.Transpose()
	labels = make([]int, n)
	for i := range labels {
		labels[i] = -1
	}
	queue := make([]int, 0, n)
	for s := 0; s < n; s++ {
		if labels[s] >= 0 {
			continue
		}
		c := len(sizes)
		labels[s] = c
		queue = append(queue[:0], s)
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for _, m := range []*tensor.CSR{adj, at} {
				if u >= m.Rows {
					continue
				}
				for k := m.Indptr[u]; k < m.Indptr[u+1]; k++ {
					v := int(m.Indices[k])
					if v < n && labels[v] < 0 && m.Values[k] != 0 {
						labels[v] = c
						queue = append(queue, v)
					}
				}
			}
		}
		sizes = append(sizes, len(queue))
	}
	return labels, sizes
}

// LargestComponent returns the nodes of the largest connected component in
// ascending order (ties: the component with the smallest node, like
// numpy's argmax over scipy's labels).
func LargestComponent(adj *tensor.CSR) []int {
	labels, sizes := ConnectedComponents(adj)
	if len(sizes) == 0 {
		return nil
	}
	best := 0
	for c, s := range sizes {
		if s > sizes[best] {
			best = c
		}
	}
	nodes := make([]int, 0, sizes[best])
	for v, l := range labels {
		if l == best {
			nodes = append(nodes, v)
		}
	}
	return nodes
}
