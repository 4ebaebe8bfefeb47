package fused

import (
	"fmt"

	"github.com/tflrun/tflrun/ops"
	"github.com/tflrun/tflrun/schema"
)

// LSTM is the kernel of TFLite's builtin LSTM operator (code 16, lstm.cc),
// versions 1 to 4: one LSTM time step per invoke, the state carried in
// variable tensors. The options' kernel_type selects the kernel:
//
//   - FULL (the default): the 20/24-input layout of
//     UNIDIRECTIONAL_SEQUENCE_LSTM (see that kernel for the inputs and the
//     three paths: float32, hybrid with symmetric or asymmetric input
//     quantisation, int8x8_16 full integer with layer norm), with a rank-2
//     input [n_batch, n_input] and output [n_batch, n_output]. Diagonal
//     recurrent weights do not exist for this operator. The integer path
//     needs exactly 5 intermediate tensors; TFLite's experimental 8x8_8
//     variant (12 intermediates) is refused with an error. LSTM's Prepare
//     keeps the cell-state scale at most 2^-9 (UNIDIRECTIONAL_SEQUENCE_LSTM
//     does not).
//   - BASIC: the 5-input basic LSTM cell with 4 outputs (see
//     lstmBasicKernel), float32 or the legacy quantised uint8 cell.
//
// Options come as *LSTMOptions (nil means all defaults: FULL, and
// activation NONE, which the full float kernel refuses as TFLite leaves
// its gate buffer unwritten then). The errors of Prepare name the input
// or output concerned; the interpreter adds the operator and its index.
type LSTM struct {
	basic bool
	full  lstmFullKernel
	cell  lstmBasicKernel
}

// NewLSTM returns a kernel for one LSTM node.
func NewLSTM() ops.Kernel { return &LSTM{} }

// LSTMKernelType is TFLite's LSTMKernelType.
type LSTMKernelType int8

// LSTM kernel types.
const (
	LSTMFull  LSTMKernelType = 0
	LSTMBasic LSTMKernelType = 1
)

// LSTMOptions is TFLite's LSTMOptions (operator LSTM).
type LSTMOptions struct {
	Activation               ops.Activation
	CellClip                 float32
	ProjClip                 float32
	KernelType               LSTMKernelType
	AsymmetricQuantizeInputs bool
}

func init() {
	// LSTM (kernel_type FULL and BASIC): versions 1–4, as TFLite registers.
	register(ops.OpLSTM, NewLSTM, [2]int{1, 4})
	registerOptions(schema.BuiltinOptionsLSTMOptions, decodeLSTMOptions)
}

// decodeLSTMOptions decodes TFLite's LSTMOptions table.
func decodeLSTMOptions(t ops.OptionsTable) (any, error) {
	var o schema.LSTMOptions
	initTable(&o, t)
	return &LSTMOptions{
		Activation:               ops.Activation(o.FusedActivationFunction()),
		CellClip:                 o.CellClip(),
		ProjClip:                 o.ProjClip(),
		KernelType:               LSTMKernelType(o.KernelType()),
		AsymmetricQuantizeInputs: o.AsymmetricQuantizeInputs(),
	}, nil
}

// Prepare dispatches on kernel_type and validates the node.
func (k *LSTM) Prepare(n *ops.Node) error {
	*k = LSTM{}
	opts := &LSTMOptions{}
	if n.Options != nil {
		o, ok := n.Options.(*LSTMOptions)
		if !ok {
			return fmt.Errorf("options are %T, need *LSTMOptions", n.Options)
		}
		opts = o
	}
	switch opts.KernelType {
	case LSTMBasic:
		k.basic = true
		return k.cell.prepare(n)
	case LSTMFull:
	default:
		return fmt.Errorf("kernel_type %d is not FULL (0) or BASIC (1)", opts.KernelType)
	}
	if in := n.Input(lstmInputTensor); in != nil && in.Type == ops.Int8 && len(n.Intermediates) == 12 {
		return fmt.Errorf("the 8x8_8 integer LSTM (12 intermediate tensors, TFLite's experimental variant) is not supported; only int8x8_16 (5 intermediates)")
	}
	return k.full.prepare(n, lstmFullOptions{
		activation: opts.Activation, cellClip: opts.CellClip, projClip: opts.ProjClip,
		asymmetric: opts.AsymmetricQuantizeInputs, timeMajor: true, sequence: false,
	})
}

// Eval runs one step. It allocates nothing.
func (k *LSTM) Eval(n *ops.Node) error {
	if k.basic {
		return k.cell.eval(n)
	}
	return k.full.eval(n)
}
