package legalize

import "math"

// rsqrt32 is 1/sqrt(x) rounded to float32 (sqrt and division are each
// correctly rounded when done in float64 and narrowed).
func rsqrt32(x float32) float32 {
	return float32(1 / float64(float32(math.Sqrt(float64(x)))))
}
