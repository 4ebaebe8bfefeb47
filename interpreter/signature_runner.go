package interpreter

import (
	"fmt"
	"slices"
)

// SignatureKeys returns the keys of the model's SignatureDefs, in the
// model's order (a model converted from a SavedModel usually has one,
// "serving_default"; a model with several entry points has one per
// entry point).
func (m *Model) SignatureKeys() []string {
	keys := make([]string, len(m.Signatures))
	for i := range m.Signatures {
		keys[i] = m.Signatures[i].Key
	}
	return keys
}

// Signature returns the SignatureDef with the given key, or an error
// listing the model's keys.
func (m *Model) Signature(key string) (*SignatureInfo, error) {
	for i := range m.Signatures {
		if m.Signatures[i].Key == key {
			return &m.Signatures[i], nil
		}
	}
	return nil, fmt.Errorf("no signature %q (the model's signatures are %q)", key, m.SignatureKeys())
}

// Subgraph returns the index of the subgraph the interpreter runs: 0 for
// one made by New, the signature's for a SignatureRunner's.
func (it *Interpreter) Subgraph() int { return it.sg.index }

// SignatureRunner runs one SignatureDef of a model, as TensorFlow Lite's
// SignatureRunner (tflite/signature_runner.h) does: its inputs and
// outputs are looked up by their names in the signature ("input_1",
// "output_0"), not by the tensor names of the graph
// ("serving_default_input_1:0"), and it runs the subgraph the signature
// names, whichever it is.
//
// A SignatureRunner owns an Interpreter for that subgraph and follows its
// rules: one goroutine at a time (ErrConcurrentUse otherwise), variable
// tensors that persist across Invoke until ResetVariableTensors, Close to
// release it. Use AllocateTensors before the first Invoke and after
// ResizeInput.
type SignatureRunner struct {
	it  *Interpreter
	sig *SignatureInfo
	// inPos[k] is the position among the subgraph's inputs of signature
	// input k; outTensor[k] the tensor of signature output k.
	inPos     []int
	outTensor []int
}

// NewSignatureRunner makes a SignatureRunner for the SignatureDef of m
// whose key is key, with an interpreter for the subgraph it names (opts
// as for New). It fails when m has no such signature (the error lists the
// keys), when a signature input is not an input of its subgraph, or as New
// fails.
func NewSignatureRunner(m *Model, key string, opts *Options) (*SignatureRunner, error) {
	if m == nil {
		return nil, fmt.Errorf("signature %q: nil model", key)
	}
	sig, err := m.Signature(key)
	if err != nil {
		return nil, err
	}
	info := &m.Subgraphs[sig.Subgraph]
	r := &SignatureRunner{sig: sig}
	for _, in := range sig.Inputs {
		pos := slices.Index(info.Inputs, in.Tensor)
		if pos < 0 {
			return nil, fmt.Errorf("signature %q: input %q is tensor %d, which is not an input of subgraph %d (its inputs are tensors %v)", key, in.Name, in.Tensor, sig.Subgraph, info.Inputs)
		}
		r.inPos = append(r.inPos, pos)
	}
	for _, out := range sig.Outputs {
		r.outTensor = append(r.outTensor, out.Tensor)
	}
	it, err := newInterpreter(m, sig.Subgraph, opts)
	if err != nil {
		return nil, fmt.Errorf("signature %q: %w", key, err)
	}
	r.it = it
	return r, nil
}

// Key returns the signature's key.
func (r *SignatureRunner) Key() string { return r.sig.Key }

// Subgraph returns the index of the subgraph the signature runs.
func (r *SignatureRunner) Subgraph() int { return r.sig.Subgraph }

// Interpreter returns the interpreter that runs the signature's subgraph
// (its Input and Output positions are the subgraph's, not the
// signature's).
func (r *SignatureRunner) Interpreter() *Interpreter { return r.it }

// InputNames returns the signature's input names, in the signature's
// order.
func (r *SignatureRunner) InputNames() []string { return names(r.sig.Inputs) }

// OutputNames returns the signature's output names, in the signature's
// order.
func (r *SignatureRunner) OutputNames() []string { return names(r.sig.Outputs) }

func names(l []SignatureTensor) []string {
	out := make([]string, len(l))
	for i := range l {
		out[i] = l[i].Name
	}
	return out
}

// inputIndex returns the signature position of the input called name.
func (r *SignatureRunner) inputIndex(name string) (int, error) {
	for k := range r.sig.Inputs {
		if r.sig.Inputs[k].Name == name {
			return k, nil
		}
	}
	return -1, fmt.Errorf("signature %q has no input %q (its inputs are %q)", r.sig.Key, name, r.InputNames())
}

// Input returns the input tensor the signature calls name, or an error
// listing the signature's input names. Its Data is valid after
// AllocateTensors.
func (r *SignatureRunner) Input(name string) (*Tensor, error) {
	k, err := r.inputIndex(name)
	if err != nil {
		return nil, err
	}
	return r.it.Input(r.inPos[k]), nil
}

// Output returns the output tensor the signature calls name, or an error
// listing the signature's output names. Its Data holds the result after
// Invoke.
func (r *SignatureRunner) Output(name string) (*Tensor, error) {
	for k := range r.sig.Outputs {
		if r.sig.Outputs[k].Name == name {
			return r.it.Tensor(r.outTensor[k]), nil
		}
	}
	return nil, fmt.Errorf("signature %q has no output %q (its outputs are %q)", r.sig.Key, name, r.OutputNames())
}

// ResizeInput sets the shape of the input the signature calls name, as
// Interpreter.ResizeInputTensor does; call AllocateTensors before the
// next Invoke.
func (r *SignatureRunner) ResizeInput(name string, shape []int) error {
	k, err := r.inputIndex(name)
	if err != nil {
		return err
	}
	if err := r.it.ResizeInputTensor(r.inPos[k], shape); err != nil {
		return fmt.Errorf("signature %q input %q: %w", r.sig.Key, name, err)
	}
	return nil
}

// ResizeInputStrict is ResizeInput restricted as
// Interpreter.ResizeInputTensorStrict: only the dimensions the model's
// shape_signature marks -1 may change.
func (r *SignatureRunner) ResizeInputStrict(name string, shape []int) error {
	k, err := r.inputIndex(name)
	if err != nil {
		return err
	}
	if err := r.it.ResizeInputTensorStrict(r.inPos[k], shape); err != nil {
		return fmt.Errorf("signature %q input %q: %w", r.sig.Key, name, err)
	}
	return nil
}

// AllocateTensors prepares the signature's subgraph and plans its memory
// (Interpreter.AllocateTensors).
func (r *SignatureRunner) AllocateTensors() error { return r.it.AllocateTensors() }

// Invoke runs the signature's subgraph once on its inputs
// (Interpreter.Invoke); recurrent state carries over from the previous
// Invoke.
func (r *SignatureRunner) Invoke() error { return r.it.Invoke() }

// ResetVariableTensors resets the subgraph's variable tensors to their
// initial state (Interpreter.ResetVariableTensors).
func (r *SignatureRunner) ResetVariableTensors() error { return r.it.ResetVariableTensors() }

// Close releases the runner's interpreter (Interpreter.Close).
func (r *SignatureRunner) Close() error { return r.it.Close() }
