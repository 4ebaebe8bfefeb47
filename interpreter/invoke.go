package interpreter

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/tflrun/tflrun/arch"
	"github.com/tflrun/tflrun/ops"
)

// Invoke runs every operator of subgraph 0 once, in order, except those
// whose output is precomputed (a DEQUANTIZE of a constant, computed at
// AllocateTensors) and those with nothing to compute (every output, and
// every variable input, has no elements). After the first call it allocates nothing on the heap.
// The error names the operator that failed. A kernel that panics, or a
// memory fault (a mapped model file truncated after Load), is returned
// as an error naming the operator and its kernel (wrapping ErrPanic or
// ErrMemoryFault), never propagated.
// Invoke returns ErrConcurrentUse while another goroutine runs the
// interpreter and ErrClosed after Close.
func (it *Interpreter) Invoke() (err error) {
	if err := it.enter(); err != nil {
		return err
	}
	defer it.exit()
	if !it.allocated {
		return ErrNotAllocated
	}
	if err := it.checkInputs(); err != nil { // tensor_access.go
		return err
	}
	arch.BeginRun()
	defer it.guard(&err, debug.SetPanicOnFault(true))
	if it.tensorLists != nil {
		it.tensorLists.Reset() // the lists of the last run are dead (lists.go)
	}
	return it.invoke()
}

func (it *Interpreter) invoke() error {
	nodes := it.sg.nodes
	for k := range nodes {
		nd := &nodes[k]
		if nd.once {
			// Listed with no time, as TFLite's profiler lists the
			// dequantize Eval that returns at once.
			it.count(k)
			continue
		}
		it.cur = k
		if nd.deferred {
			if err := it.prepareDeferred(k); err != nil {
				return fmt.Errorf("%s: %w", nd.Node.String(), err)
			}
		}
		if nd.empty {
			it.count(k)
			continue
		}
		var start time.Time
		if it.profiling {
			start = time.Now()
		}
		if err := nd.kernel.Eval(&nd.Node); err != nil {
			return fmt.Errorf("%s: %w", nd.Node.String(), err)
		}
		if it.profiling {
			it.opNanos[k] += int64(time.Since(start))
			it.opCounts[k]++
		}
		if nd.dynOut || nd.deferred {
			for j, out := range nd.Outputs {
				if out != nil && out.Kind == ops.DynamicTensor && out.Shape == nil {
					return fmt.Errorf("%s: the kernel did not size dynamic output %d (%s) at Eval", nd.Node.String(), j, out)
				}
			}
		}
	}
	it.cur = -1
	return nil
}

func (it *Interpreter) count(k int) {
	if it.profiling {
		it.opCounts[k]++
	}
}

// ResetVariableTensors sets every variable tensor to its initial state:
// zero bytes, except int8 tensors, which are set to their zero point —
// exactly what TFLite's ResetVariableTensors does (so a uint8 state with
// zero point 128 starts at real value -128·scale, as in TFLite). The
// TensorLists of the last Invoke (Flex TensorList operators) are
// forgotten too; their memory is kept for reuse. Kernels that keep state
// of their own (ops.StatefulKernel: TFLite Micro's Signal noise
// estimates, delay lines) have it reset too, as TFLite Micro's
// MicroInterpreter::Reset does. It returns
// ErrConcurrentUse while another goroutine runs the interpreter
// and ErrClosed after Close.
func (it *Interpreter) ResetVariableTensors() error {
	if err := it.enter(); err != nil {
		return err
	}
	defer it.exit()
	it.resetVariables()
	for i := range it.sg.nodes {
		if k, ok := it.sg.nodes[i].kernel.(ops.StatefulKernel); ok {
			k.ResetState()
		}
	}
	if it.tensorLists != nil {
		it.tensorLists.Reset() // no list outlives a sequence either (lists.go)
	}
	return nil
}

func (it *Interpreter) resetVariables() {
	for i := range it.sg.tensors {
		t := &it.sg.tensors[i]
		if t.Kind != ops.VariableTensor {
			continue
		}
		var fill byte
		if t.Type == ops.Int8 {
			fill = byte(int8(t.ZeroPoint()))
		}
		for j := range t.Data {
			t.Data[j] = fill
		}
	}
}

// OpProfile is the time spent in one operator over the invokes run while
// profiling was on.
type OpProfile struct {
	Index   int
	Name    string
	Version int
	// Count is the number of invokes; Total the summed time.
	Count int64
	Total time.Duration
	// Precomputed is set for an operator whose output is an
	// ops.PrecomputedTensor (a DEQUANTIZE of a constant): it ran once at
	// AllocateTensors, which profiling does not time, and Invoke skips
	// it. Count still counts the invokes and Total stays 0, the way
	// TFLite's profiler lists its dequantize kernel's Eval that returns
	// at once (times called 1 per run, about no time).
	Precomputed bool
}

// SetProfiling turns per-operator timing on or off. Timing adds two clock
// reads per operator per Invoke; it allocates nothing.
func (it *Interpreter) SetProfiling(on bool) { it.profiling = on }

// Profile returns the per-operator times accumulated since
// AllocateTensors, in execution order.
func (it *Interpreter) Profile() []OpProfile {
	p := make([]OpProfile, len(it.sg.nodes))
	for k := range it.sg.nodes {
		n := &it.sg.nodes[k].Node
		p[k] = OpProfile{Index: k, Name: n.OpName, Version: n.Version, Precomputed: it.sg.nodes[k].once}
		if k < len(it.opNanos) {
			p[k].Count = it.opCounts[k]
			p[k].Total = time.Duration(it.opNanos[k])
		}
	}
	return p
}
