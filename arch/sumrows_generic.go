package arch

// sumRowsF32Generic is the portable SumRowsF32 (rows, cols ≥ 0): the
// reference the assembly twins are tested against, and the
// implementation of -tags purego builds and CPUs without them. Eight
// columns' sums stay in registers across the rows.
func sumRowsF32Generic(acc, in []float32, rows, cols int) {
	in, acc = in[:rows*cols], acc[:cols]
	j := 0
	for ; j+8 <= cols; j += 8 {
		o := acc[j : j+8 : j+8]
		a0, a1, a2, a3, a4, a5, a6, a7 := o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]
		for k := j; k < len(in); k += cols {
			s := in[k : k+8 : k+8]
			a0 += s[0]
			a1 += s[1]
			a2 += s[2]
			a3 += s[3]
			a4 += s[4]
			a5 += s[5]
			a6 += s[6]
			a7 += s[7]
		}
		o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = a0, a1, a2, a3, a4, a5, a6, a7
	}
	for ; j < cols; j++ {
		a := acc[j]
		for k := j; k < len(in); k += cols {
			a += in[k]
		}
		acc[j] = a
	}
}

// sumRowsInt8None is the SumRowsInt8 slot of CPUs without a kernel: it
// leaves every column to sumRowsInt8Generic.
func sumRowsInt8None(acc []int32, in []int8, rows, cols int) int { return 0 }

// sumRowsInt8Generic is the portable SumRowsInt8 of the columns from
// first on: the whole of it in -tags purego builds, and the columns the
// vector kernels leave (they return how many they did, a multiple of
// their width).
func sumRowsInt8Generic(acc []int32, in []int8, rows, cols, first int) {
	in, acc = in[:rows*cols], acc[:cols]
	for r := 0; r < rows; r++ {
		row := in[r*cols+first : (r+1)*cols]
		a := acc[first:cols]
		for j, v := range row {
			a[j] += int32(v)
		}
	}
}
