package aggregate_test

import (
	"fmt"
	"log"
	"math"

	"github.com/rgnn/rgnn/aggregate"
	"github.com/rgnn/rgnn/tensor"
)

// The Soft Medoid's breakdown behaviour on a toy point set: five clean
// points around the origin and a growing cluster of outliers near
// (10, 10). Row r of the weighted matrix A aggregates the clean points
// plus the first r outliers, all with the same weight 1/(5+r) (a row sum
// of 1, so each output is the estimate itself); the table gives each
// estimate's distance from the clean points' centre. The mean moves with
// the first outlier. The Medoid stays on a clean point until the outliers
// are half of the points. The Soft Medoid, a softmax over the same
// distance sums, follows the Medoid at a low temperature (T = 0.2) and
// starts to drift towards the mean earlier at a higher one (T = 1).
func Example_softMedoidBreakdown() {
	points := [][2]float32{
		{0, 0}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}, // clean
		{10, 10}, {10.5, 10}, {10, 10.5}, {9.5, 10}, {10, 9.5}, {10.5, 10.5}, // outliers
	}
	x := tensor.NewDense(len(points), 2)
	for i, p := range points {
		x.Set(i, 0, p[0])
		x.Set(i, 1, p[1])
	}
	const clean, maxOutliers = 5, 6
	var entries []tensor.Entry
	for r := 0; r <= maxOutliers; r++ {
		for j := 0; j < clean+r; j++ {
			entries = append(entries, tensor.Entry{Row: int32(r), Col: int32(j), Val: 1 / float32(clean+r)})
		}
	}
	a, err := tensor.FromCOO(maxOutliers+1, len(points), entries)
	if err != nil {
		log.Fatal(err)
	}
	estimate := func(name string, o aggregate.Options) *tensor.Dense {
		agg, err := aggregate.New(name, o)
		if err != nil {
			log.Fatal(err)
		}
		out := tensor.NewDense(a.Rows, x.Cols)
		agg.Forward(a, x, out)
		return out
	}
	mean := estimate("sum", aggregate.Options{})
	medoid := estimate("medoid", aggregate.Options{})
	soft1 := estimate("soft_k_medoid", aggregate.Options{Temperature: 1})
	soft02 := estimate("soft_k_medoid", aggregate.Options{Temperature: 0.2})
	// dist is an estimate's distance from the clean points' centre.
	dist := func(d *tensor.Dense, r int) float64 { return math.Hypot(float64(d.At(r, 0)), float64(d.At(r, 1))) }
	fmt.Printf("%-8s %7s %7s %7s %7s\n", "outliers", "mean", "medoid", "SM T=1", "SM T=.2")
	for r := 0; r <= maxOutliers; r++ {
		fmt.Printf("%-8s %7.3f %7.3f %7.3f %7.3f\n", fmt.Sprintf("%d/%d", r, clean+r),
			dist(mean, r), dist(medoid, r), dist(soft1, r), dist(soft02, r))
	}
	// Output:
	// outliers    mean  medoid  SM T=1 SM T=.2
	// 0/5        0.000   0.000   0.000   0.000
	// 1/6        2.357   0.000   0.062   0.188
	// 2/7        4.091   0.000   0.131   0.336
	// 3/8        5.392   1.000   0.521   0.438
	// 4/9        6.325   1.000   2.842   0.522
	// 5/10       7.071  13.793   7.956   9.685
	// 6/11       7.778  13.793  11.858  13.997
}

// New builds an aggregation by its registered name (zero options are the
// reference's defaults, k = 64 and T = 1); an unknown name is an error that
// lists the known ones.
func ExampleNew() {
	fmt.Println(aggregate.Names())
	agg, err := aggregate.New("soft_k_medoid", aggregate.Options{K: 32, Temperature: 0.5})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(agg.Name())
	_, err = aggregate.New("mean", aggregate.Options{})
	fmt.Println(err)
	// Output:
	// [dimmedian k_medoid medoid soft_k_medoid soft_median sum]
	// soft_k_medoid
	// unknown aggregation "mean" (known: [dimmedian k_medoid medoid soft_k_medoid soft_median sum])
}
