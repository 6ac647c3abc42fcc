// Package certplot draws certificate figures with gonum/plot: the
// certification ratio R(r_a, r_d) over the radius (paper Figs. 6 and 8) and
// the accumulated certifications over node degree (paper Fig. 5 / 10).
// It is kept apart from package certify so the maths does not pull in the
// plotting libraries.
package certplot
