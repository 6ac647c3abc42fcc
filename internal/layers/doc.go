// Package layers holds the test that keeps the import graph pointing one
// way. DESIGN.md lists the module's packages layer by layer, bottom to top,
// in a fenced block marked "layers" (one layer a line, several packages on
// a line allowed); TestLayering runs `go list` over the module and fails
// when a package imports a module package of a higher layer, when a package
// is missing from the list, or when the list names a package that does not
// exist. Tests may import upwards (integration tests); packages may not.
package layers
