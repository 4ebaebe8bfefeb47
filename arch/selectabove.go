package arch

// Threshold selection: the scan of TOPK_V2, which keeps only the values
// that reach the current k-th best.

var (
	selectAboveF32      func(dst []int32, x []float32, th float32, orEqual bool) (n, next int)
	selectAboveF32Impls = newImpls("SelectAboveF32", &selectAboveF32, selectAboveF32Generic)
)

// SelectAboveF32 scans x from the start and writes to dst, in increasing
// order, the indices i with x[i] > th (x[i] >= th when orEqual), stopping
// when dst is full. It returns the number written and the index where the
// scan stopped: len(x), or one past the index that filled dst (the caller
// resumes there). NaN never qualifies (as with Go's comparisons). Every
// implementation gives the same result. x must have fewer than 2^31
// elements.
func SelectAboveF32(dst []int32, x []float32, th float32, orEqual bool) (n, next int) {
	if len(dst) == 0 {
		return 0, 0
	}
	return selectAboveF32(dst, x, th, orEqual)
}
