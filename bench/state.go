package bench

import (
	"fmt"
	"io"
	"strings"

	"github.com/tflrun/tflrun/interpreter"
)

// writeInterpreterState prints what TensorFlow Lite's
// PrintInterpreterState prints after the runs (--print_postinvoke_state),
// in its layout: the subgraph's tensor and node counts, inputs and
// outputs with their total bytes, one line per tensor (name, type,
// allocation kind, bytes and MiB, shape) and one per node (operator and
// tensors). tflrun's allocation kinds are TFLite's names for the same
// storage: kTfLiteMmapRo for constants in the model file,
// kTfLiteArenaRwPersistent for variable tensors, kTfLiteArenaRw for the
// rest. Arena offsets are not shown.
func writeInterpreterState(w io.Writer, it *interpreter.Interpreter) {
	m := it.Model()
	sg := &m.Subgraphs[0]
	fmt.Fprintf(w, "Interpreter has %d subgraphs.\n\n", len(m.Subgraphs))
	fmt.Fprintf(w, "-----------Subgraph-0 has %d tensors and %d nodes------------\n", it.TensorCount(), len(sg.Operators))
	total := func(ids []int) int {
		n := 0
		for _, i := range ids {
			if t := it.Tensor(i); t != nil {
				n += t.Bytes()
			}
		}
		return n
	}
	fmt.Fprintf(w, "%d Inputs: %s -> %dB (%.2fMB)\n", len(sg.Inputs), intList(sg.Inputs), total(sg.Inputs), float64(total(sg.Inputs))/(1<<20))
	fmt.Fprintf(w, "%d Outputs: %s -> %dB (%.2fMB)\n\n", len(sg.Outputs), intList(sg.Outputs), total(sg.Outputs), float64(total(sg.Outputs))/(1<<20))
	fmt.Fprintf(w, "Tensor %3s %-25s %-15s %-18s %-18s %-10s\n", "ID", "Name", "Type", "AllocType", "Size (Bytes/MB)", "Shape")
	for i := 0; i < it.TensorCount(); i++ {
		t := it.Tensor(i)
		info := &sg.Tensors[i]
		alloc := "kTfLiteArenaRw"
		switch {
		case info.IsConst():
			alloc = "kTfLiteMmapRo"
		case info.IsVariable:
			alloc = "kTfLiteArenaRwPersistent"
		}
		name := info.Name
		if len(name) > 25 {
			name = name[:25]
		}
		fmt.Fprintf(w, "Tensor %3d %-25s %-15s %-18s %-8d / %.2f %s\n", i, name, "kTfLite"+typeName(info.Type.String()), alloc, t.Bytes(), float64(t.Bytes())/(1<<20), intList(t.Shape))
	}
	fmt.Fprintln(w)
	for i, op := range sg.Operators {
		fmt.Fprintf(w, "Node %3d Operator Builtin Code %3d %s\n", i, int(op.Op), op.Name)
		fmt.Fprintf(w, "  %d Input Tensors:%s\n", len(op.Inputs), intList(op.Inputs))
		fmt.Fprintf(w, "  %d Output Tensors:%s\n", len(op.Outputs), intList(op.Outputs))
	}
}

// typeName is TFLite's TfLiteType suffix for a tflrun type name
// ("float32" → "Float32").
func typeName(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func intList(v []int) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
