package builtin

import (
	"errors"
	"fmt"
	"math"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// StridedSlice is the kernel of TFLite's STRIDED_SLICE operator: it takes
// every stride-th element of input 0 from begin towards end along each
// dimension, numpy style.
//
// Inputs: 0 input (any fixed-size type), 1 begin, 2 end, 3 strides (int32
// vectors of equal length n ≤ 31). Bit i of StridedSliceOptions' masks
// refers to entry i: begin_mask/end_mask ignore begin[i]/end[i] (the whole
// range in the stride's direction), ellipsis_mask makes entry i stand for
// as many full dimensions as the input has beyond the other entries,
// new_axis_mask inserts a dimension of size 1, shrink_axis_mask takes the
// single element at begin[i] and drops the dimension. Negative indices
// count from the end; indices are clamped to the dimension (to [0, size]
// for positive strides, [-1, size-1] for negative ones). With offset set,
// end[i] is relative to begin[i] and, as in TFLite, gives the output size
// of that dimension directly. Output 0 has the input's type.
//
// Semantics follow TFLite's strided_slice.cc (BuildStridedSliceParams,
// StartForAxis/EndForAxis of the dynamic reference kernel). Strides and end
// must be constant tensors, and begin too unless offset is set (tflrun
// sizes outputs at Prepare); a zero stride, a shrink index outside the
// dimension and overflowing sizes are Prepare errors.
type StridedSlice struct {
	opts StridedSliceOptions
	elem int
	// Effective dimensions (after ellipsis expansion and new axes).
	dims     int
	shape    []int  // effective input shape
	stride   []int  // slicing stride
	inStride []int  // input element stride
	src      []int  // index into begin/end/strides, -1 for implicit dims
	begMask  []bool // effective begin mask
	endMask  []bool // effective end mask
	shrink   []bool // effective shrink mask
	newAxis  []bool // a new axis of size 1, not an input dimension
	begin    []int  // raw begin per effective dimension
	end      []int  // raw end per effective dimension
	start    []int  // resolved start
	stop     []int  // resolved stop
	count    []int  // steps per effective dimension
	pos      []int  // odometer
	total    int    // output elements
	dynBegin bool   // begin is read at Eval (offset mode only)
}

// NewStridedSlice returns a STRIDED_SLICE kernel for one node.
func NewStridedSlice() ops.Kernel { return &StridedSlice{} }

// StridedSliceOptions is TFLite's StridedSliceOptions: bit i of a mask
// refers to dimension i of the begin/end/strides vectors.
type StridedSliceOptions struct {
	BeginMask, EndMask, EllipsisMask, NewAxisMask, ShrinkAxisMask int32
	// Offset: end is relative to begin (end = begin + end) when true.
	Offset bool
}

func init() {
	// The versions TFLite registers; Prepare refuses the types this
	// kernel lacks.
	register(ops.OpStridedSlice, NewStridedSlice, [2]int{1, 8})
	registerOptions(schema.BuiltinOptionsStridedSliceOptions, decodeStridedSliceOptions)
}

// decodeStridedSliceOptions decodes TFLite's StridedSliceOptions table.
func decodeStridedSliceOptions(t ops.OptionsTable) (any, error) {
	var o schema.StridedSliceOptions
	initTable(&o, t)
	return &StridedSliceOptions{
		BeginMask:      o.BeginMask(),
		EndMask:        o.EndMask(),
		EllipsisMask:   o.EllipsisMask(),
		NewAxisMask:    o.NewAxisMask(),
		ShrinkAxisMask: o.ShrinkAxisMask(),
		Offset:         o.Offset(),
	}, nil
}

var errSliceShape = errors.New("STRIDED_SLICE: begin values at Eval select a different number of elements than the output was sized for")

// Prepare validates the node, resolves the masks and sets the output shape.
func (k *StridedSlice) Prepare(n *ops.Node) error {
	*k = StridedSlice{}
	if o, ok := n.Options.(*StridedSliceOptions); ok && o != nil {
		k.opts = *o
	} else if n.Options != nil {
		return fmt.Errorf("options: have %T, need *StridedSliceOptions", n.Options)
	}
	if err := n.CheckIO(4, 4, 1); err != nil {
		return err
	}
	in, err := n.RequireInput(0)
	if err != nil {
		return err
	}
	out := n.Output(0)
	if out == nil {
		return errors.New("output 0 is missing")
	}
	labels := [...]string{"", "input 1 (begin)", "input 2 (end)", "input 3 (strides)"}
	var vals [4][]int32
	count := -1
	for i := 1; i <= 3; i++ {
		t, err := n.RequireInput(i)
		if err != nil {
			return err
		}
		if t.Type != ops.Int32 {
			return fmt.Errorf("%s: type %s, need int32", labels[i], t.Type)
		}
		if t.Rank() != 1 {
			return fmt.Errorf("%s: rank %d, need 1", labels[i], t.Rank())
		}
		if count >= 0 && t.Shape[0] != count {
			return fmt.Errorf("%s: %d entries, begin has %d", labels[i], t.Shape[0], count)
		}
		count = t.Shape[0]
		if count > 31 {
			return fmt.Errorf("%s: %d entries, at most 31 are supported", labels[i], count)
		}
		if t.Kind == ops.ConstTensor {
			if len(t.Data) < 4*count {
				return fmt.Errorf("%s: constant data has %d bytes, need %d", labels[i], len(t.Data), 4*count)
			}
			vals[i] = t.Int32s()[:count]
		} else if i != 1 || !k.opts.Offset {
			return ops.NotConstant(labels[i])
		}
	}
	if out.Type != in.Type {
		return fmt.Errorf("output 0: type %s differs from input type %s", out.Type, in.Type)
	}
	if k.elem = in.Type.Size(); k.elem == 0 {
		return fmt.Errorf("input 0: type %s is not supported", in.Type)
	}
	if _, err := numElementsChecked(in, "input 0"); err != nil {
		return err
	}
	if err := k.resolve(in.Shape, count, vals[3]); err != nil {
		return err
	}
	if !k.mapsInput(in.Shape) {
		// The ellipsis and new-axis masks marked more (or fewer) new
		// axes than they added, so the effective dimensions do not
		// cover input 0's: slicing would read past its data.
		return fmt.Errorf("ellipsis mask %#x and new axis mask %#x do not map onto the %d dimensions of input 0 %v", k.opts.EllipsisMask, k.opts.NewAxisMask, len(in.Shape), in.Shape)
	}
	k.dynBegin = vals[1] == nil
	for d := 0; d < k.dims; d++ {
		j := k.src[d]
		if j < 0 {
			continue
		}
		if k.stride[d] == 0 {
			return fmt.Errorf("input 3 (strides): entry %d is 0; strides must be nonzero", j)
		}
		if k.stride[d] == math.MinInt32 {
			return fmt.Errorf("input 3 (strides): entry %d is INT32_MIN, which is not supported", j)
		}
		k.end[d] = int(vals[2][j])
		if !k.dynBegin {
			k.begin[d] = int(vals[1][j])
		}
	}
	var outShape []int
	for d := 0; d < k.dims; d++ {
		if k.shrink[d] {
			if !k.dynBegin {
				// TFLite would produce an empty slice here while still
				// dropping the dimension, leaving the output unwritten.
				if b := k.startFor(d); b < 0 || b >= k.shape[d] {
					return fmt.Errorf("input 1 (begin): shrink index %d is outside dimension %d of size %d", k.begin[d], d, k.shape[d])
				}
			}
			continue
		}
		var size int64
		if k.opts.Offset && k.src[d] >= 0 {
			// TFLite sizes an offset slice by the relative end itself.
			size = int64(k.end[d])
		} else {
			b := k.startFor(d)
			size = int64(k.endFor(d, b)) - int64(b)
		}
		s := int64(k.stride[d])
		switch {
		case (size < 0) != (s < 0):
			size = 0
		case s < 0:
			size = (size+1)/s + 1
		case size != 0:
			size = (size-1)/s + 1
		}
		if size > math.MaxInt32 {
			return fmt.Errorf("output 0: size of dimension %d overflows", d)
		}
		outShape = append(outShape, int(size))
	}
	if outShape == nil {
		outShape = []int{}
	}
	if k.total, err = ops.ShapeElements(outShape, k.elem); err != nil {
		return fmt.Errorf("output 0: %v", err)
	}
	out.Shape = outShape
	return nil
}

// resolve expands the ellipsis and new axes into effective dimensions, as
// TFLite's BuildStridedSliceParams does. An ellipsis bit at or past the n
// entries of begin, end and strides can leave dimensions before it that
// no entry describes; TFLite then reads past the end of the strides
// (undefined behaviour), and resolve returns an error instead.
func (k *StridedSlice) resolve(inShape []int, n int, strides []int32) error {
	o := &k.opts
	bit := func(mask int32, i int) bool { return i >= 0 && i < 32 && mask&(1<<uint(i)) != 0 }
	addAxis := 0
	for i := 0; i < n; i++ {
		if !bit(o.EllipsisMask, i) && bit(o.NewAxisMask, i) {
			addAxis++
		}
	}
	dims := len(inShape) + addAxis
	ellipsis := make([]bool, dims)
	newAxis := make([]bool, dims)
	ellStart, expanded := dims, 0
	for i := 0; i < dims; {
		if bit(o.EllipsisMask, i) {
			ellStart = i
			end := max(i+1, min(i+1+addAxis+len(inShape)-n, dims))
			expanded = end - ellStart - 1
			for ; i < end; i++ {
				ellipsis[i] = true
			}
			continue
		}
		if bit(o.NewAxisMask, i-expanded) {
			newAxis[i] = true
		}
		i++
	}
	k.dims = dims
	alloc := func() []int { return make([]int, dims) }
	k.shape, k.stride, k.src, k.inStride = alloc(), alloc(), alloc(), alloc()
	k.begin, k.end, k.start, k.stop, k.count, k.pos = alloc(), alloc(), alloc(), alloc(), alloc(), alloc()
	k.begMask, k.endMask, k.shrink = make([]bool, dims), make([]bool, dims), make([]bool, dims)
	k.newAxis = newAxis
	addedEll, addedAxes := 0, 0
	for i := 0; i < dims; i++ {
		k.stride[i], k.src[i] = 1, -1
		switch {
		case ellipsis[i]:
			addedEll = max(0, i-ellStart)
			k.begMask[i], k.endMask[i] = true, true
			k.shape[i] = inShape[i-addedAxes]
		case newAxis[i]:
			k.shape[i], k.end[i] = 1, 1
			addedAxes++
		case i >= n+expanded:
			k.begMask[i], k.endMask[i] = true, true
			k.shape[i] = inShape[i-addedAxes]
		default:
			j := i - addedEll
			if j < 0 || j >= n {
				return fmt.Errorf("options: the ellipsis mask (%#x) and new-axis mask (%#x) leave effective dimension %d without an entry of the %d in begin, end and strides", o.EllipsisMask, o.NewAxisMask, i, n)
			}
			k.src[i] = j
			k.stride[i] = int(strides[j])
			k.begMask[i] = bit(o.BeginMask, j)
			k.endMask[i] = bit(o.EndMask, j)
			k.shrink[i] = bit(o.ShrinkAxisMask, j)
			k.shape[i] = inShape[i-addedAxes]
		}
	}
	s := 1
	for i := dims - 1; i >= 0; i-- {
		k.inStride[i] = s
		s *= k.shape[i]
	}
	return nil
}

// mapsInput reports whether the effective dimensions resolve made, less
// the new axes, are the input's dimensions in order.
func (k *StridedSlice) mapsInput(inShape []int) bool {
	j := 0
	for d := 0; d < k.dims; d++ {
		if k.newAxis[d] {
			continue
		}
		if j >= len(inShape) || k.shape[d] != inShape[j] {
			return false
		}
		j++
	}
	return j == len(inShape)
}

// startFor is TFLite's StartForAxis for effective dimension d.
func (k *StridedSlice) startFor(d int) int {
	size, s, start := k.shape[d], k.stride[d], k.begin[d]
	if start < 0 {
		start += size
	}
	if s > 0 {
		start = min(max(start, 0), size)
	} else {
		start = min(max(start, -1), size-1)
	}
	if k.begMask[d] {
		if s > 0 {
			start = 0
		} else {
			start = size - 1
		}
	}
	return start
}

// endFor is TFLite's EndForAxis for effective dimension d given its start.
func (k *StridedSlice) endFor(d, start int) int {
	size, s := k.shape[d], k.stride[d]
	if k.shrink[d] {
		if start >= size {
			return start
		}
		return start + 1
	}
	end := k.end[d]
	if k.opts.Offset && k.src[d] >= 0 {
		end += start
	}
	if end < 0 {
		end += size
	}
	if s > 0 {
		end = min(max(end, 0), size)
	} else {
		end = min(max(end, -1), size-1)
	}
	if k.endMask[d] {
		if s > 0 {
			end = size
		} else {
			end = -1
		}
	}
	return end
}

// Eval copies the selected elements in order.
func (k *StridedSlice) Eval(n *ops.Node) error {
	in, out := n.Input(0), n.Output(0)
	if in == nil || out == nil {
		return errors.New("STRIDED_SLICE: input or output missing at Eval")
	}
	if err := checkData(in, out); err != nil {
		return err
	}
	if k.dynBegin {
		b := n.Input(1)
		if b == nil || len(b.Data) < 4*b.NumElements() {
			return errors.New("STRIDED_SLICE: input 1 (begin) missing at Eval")
		}
		bv := b.Int32s()
		for d := 0; d < k.dims; d++ {
			if j := k.src[d]; j >= 0 {
				if j >= len(bv) {
					return errSliceShape
				}
				k.begin[d] = int(bv[j])
			}
		}
	}
	total := 1
	for d := 0; d < k.dims; d++ {
		k.start[d] = k.startFor(d)
		k.stop[d] = k.endFor(d, k.start[d])
		s := k.stride[d]
		c := 0
		if s > 0 && k.stop[d] > k.start[d] {
			c = (k.stop[d] - k.start[d] + s - 1) / s
		} else if s < 0 && k.stop[d] < k.start[d] {
			c = (k.start[d] - k.stop[d] - s - 1) / -s
		}
		k.count[d] = c
		total *= c
	}
	if total != k.total {
		return errSliceShape
	}
	if total == 0 {
		return nil
	}
	if k.dims == 0 {
		copy(out.Data[:k.elem], in.Data)
		return nil
	}
	if k.stride[k.dims-1] == 1 {
		k.copyRuns(in.Data, out.Data)
		return nil
	}
	// Odometer over all but the innermost dimension, copied element by
	// element (its stride is not 1).
	last := k.dims - 1
	for d := range k.pos {
		k.pos[d] = 0
	}
	o := 0
	eb := k.elem
	for {
		base := 0
		for d := 0; d < last; d++ {
			base += (k.start[d] + k.pos[d]*k.stride[d]) * k.inStride[d]
		}
		c, st := k.count[last], k.stride[last]
		first := base + k.start[last]
		if st == 1 {
			copy(out.Data[o:o+c*eb], in.Data[first*eb:(first+c)*eb])
			o += c * eb
		} else {
			for i := 0; i < c; i++ {
				e := first + i*st
				copy(out.Data[o:o+eb], in.Data[e*eb:e*eb+eb])
				o += eb
			}
		}
		d := last - 1
		for ; d >= 0; d-- {
			k.pos[d]++
			if k.pos[d] < k.count[d] {
				break
			}
			k.pos[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}

// copyRuns is Eval's copy when the innermost stride is 1. The innermost
// dimensions that the slice takes whole (stride 1, every index) fold into
// one contiguous run with the partly taken dimension outside them; the
// next dimension out, when its stride is positive, gives equally spaced
// runs, copied by the builtin copyRuns (short runs, such as a slice of
// 16 channels of 32, without a memmove call each); an odometer walks the
// dimensions outside that.
func (k *StridedSlice) copyRuns(src, dst []byte) {
	inner, runE := k.dims-1, k.count[k.dims-1]
	for inner > 0 && k.stride[inner-1] == 1 && runE == k.inStride[inner-1] {
		inner--
		runE = k.count[inner] * k.inStride[inner]
	}
	eb := k.elem
	seg := runE * eb
	rows, rowStride, od := 1, 0, inner // od: the odometer's dimensions [0, od)
	if inner > 0 && k.stride[inner-1] > 0 {
		od = inner - 1
		rows = k.count[od]
		rowStride = k.stride[od] * k.inStride[od] * eb
	}
	for d := range k.pos {
		k.pos[d] = 0
	}
	o := 0
	for {
		base := k.start[inner] * k.inStride[inner]
		for d := 0; d < inner; d++ {
			base += (k.start[d] + k.pos[d]*k.stride[d]) * k.inStride[d]
		}
		copyRuns(dst[o:], seg, src[base*eb:], rowStride, seg, rows)
		o += rows * seg
		d := od - 1
		for ; d >= 0; d-- {
			k.pos[d]++
			if k.pos[d] < k.count[d] {
				break
			}
			k.pos[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
