package linalg_test

import (
	"fmt"
	"log"

	"github.com/rgnn/rgnn/linalg"
	"github.com/rgnn/rgnn/tensor"
)

// The truncated SVD of a symmetric matrix is its eigendecomposition ordered
// by |λ|. The complete graph on four nodes has the eigenvalues 3 (the
// eigenvector 1/2·(1, 1, 1, 1)) and −1 three times, so its rank-1 truncated
// SVD is 3/4 in every entry.
func ExampleTruncatedSVD() {
	var es []tensor.Entry
	for i := range int32(4) {
		for j := range int32(4) {
			if i != j {
				es = append(es, tensor.Entry{Row: i, Col: j, Val: 1})
			}
		}
	}
	a, err := tensor.FromCOO(4, 4, es)
	if err != nil {
		log.Fatal(err)
	}
	l, err := linalg.TruncatedSVD(a, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("eigenvalues %.3f, singular values %.3f\n", l.Values, l.SingularValues())
	fmt.Printf("L[0,1] = %.3f, L[2,2] = %.3f\n", l.At(0, 1), l.At(2, 2))
	_, err = linalg.TruncatedSVD(a, 4)
	fmt.Println(err)
	// Output:
	// eigenvalues [3.000], singular values [3.000]
	// L[0,1] = 0.750, L[2,2] = 0.750
	// svd: rank 4 outside [1, n) = [1, 4)
}
