package tfmodel

import (
	"sort"

	"github.com/tflrun/tflrun/convert/internal/tfpb"
	"github.com/tflrun/tflrun/convert/ir"
)

// FunctionInfo summarises one function of the library.
type FunctionInfo struct {
	Name            string
	Inputs, Outputs int
	Nodes           int
	// ImplementsAttr ("_implements", "api_implements", ...) and
	// Implements (its value) are set for a composite-op function.
	ImplementsAttr, Implements string
}

// Functions lists the function library, sorted by name, with each
// function's composite annotation.
func (m *Model) Functions() []FunctionInfo {
	var out []FunctionInfo
	for _, name := range m.Module.FunctionNames() {
		fd := m.Module.Library[name]
		fi := FunctionInfo{Name: name, Inputs: len(fd.Signature.GetInputArg()), Outputs: len(fd.Signature.GetOutputArg()), Nodes: len(fd.NodeDef)}
		fi.ImplementsAttr, fi.Implements = implementsOf(fd)
		out = append(out, fi)
	}
	return out
}

// Composites lists the functions that carry an implements annotation.
func (m *Model) Composites() []FunctionInfo {
	var out []FunctionInfo
	for _, f := range m.Functions() {
		if f.ImplementsAttr != "" {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func implementsOf(fd *tfpb.FunctionDef) (attr, value string) {
	f := &ir.Function{Attrs: fd.Attr}
	attr, value, _ = f.Implements()
	return attr, value
}
