package interpreter

import (
	"fmt"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Byte-table fusion of x·σ(x). Quantised detectors (YOLOv5/8/11, the
// EfficientNet family) build SiLU and its kin from two operators on the
// same int8 or uint8 tensor: s = LOGISTIC(x) (or TANH) and y = MUL(x, s).
// Both are elementwise and s depends on x alone, so every output byte is
// a function of one input byte: the pair is one 256-entry table. The
// table is made by running the pair's own prepared kernels (a fresh
// instance of each, with the same options and quantisation) over the 256
// byte values, so the fused result is the unfused one bit for bit, and
// Invoke then runs one vector table lookup (arch.LookupBytes) in MUL's
// place while LOGISTIC is skipped (it is listed with no time in the
// profile, as a precomputed operator is). TensorFlow Lite's XNNPACK
// delegate fuses the same pair into one lookup table (xnn_x8_lut); its
// builtin kernels run both, with the same bytes as here.

// fuseByteTables is off only in tests that compare against the unfused
// graph (it turns off fuseScalarTables too).
var fuseByteTables = true

// fuseLUTs finds the fusable pairs of the prepared subgraph and installs
// their table kernels. It runs after every operator is prepared and
// before the arena is planned; a pair whose table cannot be made is left
// unfused.
func (it *Interpreter) fuseLUTs() {
	if !fuseByteTables {
		return
	}
	sg := it.sg
	readers, producer := it.nodeUses()
	for j := range sg.nodes {
		mul := &sg.nodes[j]
		if mul.Op != ops.OpMul || !fusable(mul) || len(mul.Inputs) != 2 || len(mul.Outputs) != 1 {
			continue
		}
		for xi := 0; xi < 2; xi++ {
			x, s := mul.Inputs[xi], mul.Inputs[1-xi]
			if x == nil || s == nil || x == s || s.Kind != ops.ArenaTensor || readers[s.Index] != 1 {
				continue
			}
			p := producer[s.Index]
			if p < 0 || p >= j {
				continue
			}
			act := &sg.nodes[p]
			if act.Op != ops.OpLogistic && act.Op != ops.OpTanh || !fusable(act) ||
				len(act.Inputs) != 1 || len(act.Outputs) != 1 || act.Inputs[0] != x {
				continue
			}
			y := mul.Outputs[0]
			if !byteTyped(x, s, y) || !slicesEqual(x.Shape, s.Shape) || !slicesEqual(x.Shape, y.Shape) {
				continue
			}
			table, err := it.byteTable(act, mul, xi)
			if err != nil {
				continue // left as it is
			}
			bk := &byteTableKernel{table: table, x: xi}
			bk.fn = bk.part
			mul.kernel = bk
			act.empty = true
			break
		}
	}
	it.fuseScalarTables()
	it.fuseSiLU()
}

// scalarByteOps are the elementwise binary operators that become one
// byte table when one input is a constant of one element: the output is
// then a function of the other input's byte alone. Normalising inputs
// (x − mean, x·scale), biases and clamps against a scalar do this.
var scalarByteOps = map[ops.BuiltinOperator]bool{
	ops.OpAdd: true, ops.OpSub: true, ops.OpMul: true, ops.OpDiv: true,
	ops.OpMaximum: true, ops.OpMinimum: true, ops.OpSquaredDifference: true,
	ops.OpFloorDiv: true, ops.OpFloorMod: true,
}

// fuseScalarTables replaces the kernel of each int8 or uint8 binary
// operator of scalarByteOps whose other input is a one-element constant
// by a byte table made, as for x·σ(x), by the operator's own kernel run
// on the 256 byte values against that constant: the results are the
// kernel's bit for bit, and Invoke runs arch.LookupBytes (on AVX-512
// VBMI some thirty times the fixed-point ADD/SUB kernels' speed).
// TensorFlow Lite's XNNPACK delegate turns such operators into lookup
// tables as well. An operator whose table cannot be made keeps its
// kernel.
func (it *Interpreter) fuseScalarTables() {
	sg := it.sg
	for j := range sg.nodes {
		nd := &sg.nodes[j]
		if !scalarByteOps[nd.Op] || !fusable(nd) || len(nd.Inputs) != 2 || len(nd.Outputs) != 1 {
			continue
		}
		if _, done := nd.kernel.(*byteTableKernel); done {
			continue
		}
		xi := scalarOperand(nd)
		if xi < 0 {
			continue
		}
		table, err := it.scalarTable(nd, xi)
		if err != nil {
			continue // left as it is
		}
		bk := &byteTableKernel{table: table, x: xi}
		bk.fn = bk.part
		nd.kernel = bk
	}
}

// scalarOperand returns the index of binary node nd's varying input when
// the other is a one-element constant of the same byte type and the
// output has the varying input's type class and shape, else -1.
func scalarOperand(nd *node) int {
	y := nd.Outputs[0]
	if y == nil || y.Kind != ops.ArenaTensor {
		return -1
	}
	for xi := range 2 {
		x, c := nd.Inputs[xi], nd.Inputs[1-xi]
		if x == nil || c == nil || x == c || !byteTyped(x, y) {
			continue
		}
		if c.Kind != ops.ConstTensor || c.Type != x.Type || c.NumElements() != 1 || len(c.Data) < 1 || !slicesEqual(x.Shape, y.Shape) {
			continue
		}
		return xi
	}
	return -1
}

// scalarTable runs a fresh instance of nd's kernel on the 256 byte
// values of its input xi against its one-element constant (as a [1]
// tensor, which broadcasts as the original does since the output has
// the input's shape) and returns the outputs.
func (it *Interpreter) scalarTable(nd *node, xi int) (*[256]byte, error) {
	x, c, y := nd.Inputs[xi], nd.Inputs[1-xi], nd.Outputs[0]
	tx := &ops.Tensor{Name: x.Name, Type: x.Type, Shape: []int{256}, Quant: x.Quant, Kind: ops.ArenaTensor, Data: make([]byte, 256)}
	tc := &ops.Tensor{Name: c.Name, Type: c.Type, Shape: []int{1}, Quant: c.Quant, Kind: ops.ConstTensor, Data: c.Data[:1]}
	ty := &ops.Tensor{Name: y.Name, Type: y.Type, Shape: []int{256}, Quant: y.Quant, Kind: ops.ArenaTensor, Data: make([]byte, 256)}
	for v := range tx.Data {
		tx.Data[v] = byte(v)
	}
	inputs := []*ops.Tensor{tx, tc}
	if xi == 1 {
		inputs = []*ops.Tensor{tc, tx}
	}
	if err := runAlone(nd, inputs, ty); err != nil {
		return nil, err
	}
	var table [256]byte
	copy(table[:], ty.Data)
	return &table, nil
}

// nodeUses returns, per tensor of the prepared subgraph, how many
// operators read it (+1 for a subgraph output) and which operator writes
// it (-1 none, -2 several), from the nodes' current inputs and outputs.
func (it *Interpreter) nodeUses() (readers, producer []int) {
	sg := it.sg
	readers = make([]int, len(sg.tensors))
	producer = make([]int, len(sg.tensors))
	for i := range producer {
		producer[i] = -1
	}
	for k := range sg.nodes {
		for _, t := range sg.nodes[k].Inputs {
			if t != nil {
				readers[t.Index]++
			}
		}
		for _, t := range sg.nodes[k].Intermediates {
			if t != nil {
				readers[t.Index]++
			}
		}
		for _, t := range sg.nodes[k].Outputs {
			if t != nil {
				if producer[t.Index] == -1 {
					producer[t.Index] = k
				} else {
					producer[t.Index] = -2
				}
			}
		}
	}
	for _, o := range sg.outputs {
		readers[o]++ // a graph output is read by the caller
	}
	return readers, producer
}

// fusable reports whether prepared node nd runs at Invoke with fixed
// shapes and an ordinary kernel.
func fusable(nd *node) bool {
	return nd.kernel != nil && !nd.once && !nd.empty && !nd.deferred && !nd.dynOut
}

// byteTyped reports whether the tensors are all int8 or all uint8
// activations.
func byteTyped(ts ...*ops.Tensor) bool {
	for _, t := range ts {
		if t.Type != ts[0].Type || t.Type != ops.Int8 && t.Type != ops.Uint8 || t.Kind != ops.ArenaTensor {
			return false
		}
	}
	return true
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// byteTable runs fresh instances of act's and mul's kernels on the 256
// byte values of x (mul's input xi) and returns mul's outputs.
func (it *Interpreter) byteTable(act, mul *node, xi int) (*[256]byte, error) {
	x, s, y := act.Inputs[0], act.Outputs[0], mul.Outputs[0]
	tx := &ops.Tensor{Name: x.Name, Type: x.Type, Shape: []int{256}, Quant: x.Quant, Kind: ops.ArenaTensor, Data: make([]byte, 256)}
	ts := &ops.Tensor{Name: s.Name, Type: s.Type, Shape: []int{256}, Quant: s.Quant, Kind: ops.ArenaTensor, Data: make([]byte, 256)}
	ty := &ops.Tensor{Name: y.Name, Type: y.Type, Shape: []int{256}, Quant: y.Quant, Kind: ops.ArenaTensor, Data: make([]byte, 256)}
	for v := range tx.Data {
		tx.Data[v] = byte(v)
	}
	inputs := []*ops.Tensor{tx, ts}
	if xi == 1 {
		inputs = []*ops.Tensor{ts, tx}
	}
	if err := runAlone(act, []*ops.Tensor{tx}, ts); err != nil {
		return nil, err
	}
	if err := runAlone(mul, inputs, ty); err != nil {
		return nil, err
	}
	var table [256]byte
	copy(table[:], ty.Data)
	return &table, nil
}

// runAlone prepares and evaluates a fresh kernel of nd's registration on
// the given tensors, one thread, with scratch of its own.
func runAlone(nd *node, inputs []*ops.Tensor, out *ops.Tensor) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v", nd.Node.String(), r)
		}
	}()
	n := &ops.Node{
		Subgraph: nd.Subgraph, Index: nd.Index, OpName: nd.OpName, Op: nd.Op, Version: nd.Version,
		Options: nd.Options, CustomOptions: nd.CustomOptions,
		Inputs: inputs, Outputs: []*ops.Tensor{out},
	}
	k := nd.reg.New()
	if err := k.Prepare(n); err != nil {
		return err
	}
	if len(out.Shape) != 1 || out.Shape[0] != 256 {
		return fmt.Errorf("%s: output shape %v for 256 values", nd.Node.String(), out.Shape)
	}
	n.Scratch = make([][]byte, len(n.ScratchSizes()))
	for i, size := range n.ScratchSizes() {
		n.Scratch[i] = alignedBytes(size)
	}
	return k.Eval(n)
}

// byteTableKernel is the fused pair's kernel in MUL's place: output 0 is
// table[input x], element by element.
type byteTableKernel struct {
	table *[256]byte
	x     int
	in    []byte
	out   []byte
	fn    func(worker, lo, hi int)
}

// tableBlock is the granularity, in bytes, of the fused lookup's parts.
const tableBlock = 4096

func (k *byteTableKernel) Prepare(n *ops.Node) error { return nil }

func (k *byteTableKernel) Eval(n *ops.Node) error {
	in, out := n.Inputs[k.x], n.Outputs[0]
	count := in.NumElements()
	if len(in.Data) < count || len(out.Data) < count {
		return fmt.Errorf("fused %s: tensor data is shorter than its shape requires", n.OpName)
	}
	k.in, k.out = in.Data[:count], out.Data[:count]
	n.Parallel((count+tableBlock-1)/tableBlock, count, k.fn)
	k.in, k.out = nil, nil
	return nil
}

func (k *byteTableKernel) part(_, lo, hi int) {
	a, b := lo*tableBlock, min(hi*tableBlock, len(k.in))
	arch.LookupBytes(k.out[a:b], k.in[a:b], k.table)
}
