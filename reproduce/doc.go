// Package reproduce is `rgnn reproduce`: it runs the embedded reproduction
// experiment of a dataset (experiment.Reproduction: GCN, GDC and Soft
// Medoid GDC trained, attacked and certified; or, with Options.Paper, the
// shipped files of the paper's whole evaluation, experiment.PaperReproduction)
// through the resumable runner into a results store, then writes the report
// of that store (report.Build: report.md, report.html, figures/) beside it
// and states how Soft Medoid GDC compares with a vanilla GCN.
//
// It sits above both the grid runner (package experiment) and the renderer
// (package report), so that neither depends on the other.
package reproduce
