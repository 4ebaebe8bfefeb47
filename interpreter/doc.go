// Package interpreter runs TensorFlow Lite models: it loads and verifies a
// .tflite file, resolves a kernel for every operator, plans the tensors'
// memory and runs the operators in order, as TensorFlow Lite's interpreter
// does.
//
// # The life of a model
//
// Load (or LoadBytes) verifies the flatbuffer structurally and
// semantically (indices in range, shapes sane, constant buffers of the
// size their tensors need, every operator input defined before use) and
// decodes each operator's builtin options with the decoders of the
// packages that hold the kernels (model.go, parse.go). The Model is
// immutable and may back any number of interpreters; its constant tensors
// are views of the file's bytes (a read-only memory map on Linux and
// macOS). Each tensor has one producer (a constant, a variable, a graph
// input or one operator), and the memory the Model's description takes
// is bounded by the file's size, so a hostile file cannot describe more
// than it holds.
//
// New makes an Interpreter for subgraph 0 (interpreter.go): its own
// tensors, with the shapes the model declares, and one node per operator
// (subgraph.go). Nothing is resolved or allocated yet.
//
// AllocateTensors looks up each operator's kernel in the resolver
// (Options.Resolver, DefaultResolver when nil) and runs the kernels'
// Prepare in execution order, which validates the node, sets the output
// shapes and requests scratch; an unsupported operator, version or type
// combination is reported here, naming the operator. A DEQUANTIZE of a
// constant is computed once, here, instead of at every Invoke. Then the
// planner (plan.go) gives every activation and scratch buffer an offset in
// one arena, sharing memory between buffers whose lifetimes do not
// overlap, gives the variable tensors storage of their own, and resets
// them. Call it again after ResizeInputTensor.
//
// Invoke (invoke.go) runs every operator's Eval once, in order, on the
// inputs written into Input(i) (its Data, or CopyFrom), leaving the
// results in Output(i). It first checks that no input's Type, Shape or
// Data was changed since AllocateTensors (tensor_access.go), and names
// the input when one was. After the first call it allocates nothing on the
// heap. A kernel that panics, or a memory fault (a mapped file truncated
// after Load), comes back as an error naming the operator and its kernel
// that wraps ErrPanic or ErrMemoryFault.
//
// # Signatures
//
// A model's SignatureDefs name its entry points (Model.SignatureKeys).
// NewSignatureRunner runs one, as TensorFlow Lite's SignatureRunner does:
// it makes an interpreter for the subgraph the signature names (any
// subgraph, not only 0) and finds inputs and outputs by the signature's
// names ("input_1"), with ResizeInput by name (signature_runner.go).
//
// # Checked access
//
// Tensor's fields are the kernels' contract and stay writable, so misuse
// is caught where it matters: the typed views (Float32s, Int8s, …) are
// nil for a tensor of another type, Elements is their checked form with
// an error, CopyFrom and CopyTo check type and length, Input and Output
// are nil out of range and InputTensor, OutputTensor, InputByName and
// OutputByName return an error instead, and Invoke refuses inputs changed
// behind its back. The data types are re-exported (Float32, Int8, …), so
// a program needs no other import to name them.
//
// # Dynamic shapes and control flow
//
// A tensor whose shape depends on the run-time values of an input (a
// RESHAPE or FILL fed by SHAPE → STRIDED_SLICE → PACK, TOPK_V2 with a
// computed k, a loop-carried tensor that grows) is an ops.DynamicTensor,
// TensorFlow Lite's kTfLiteDynamic (dynamic.go): kernels size it at Eval
// (ops.Node.ResizeOutput) into a grow-only buffer of its own, charged to
// the memory bound, and the operators that read it are prepared at Invoke,
// again only when their input shapes (or, for a kernel that returned an
// ops.NotConstantError, the small integer inputs it reads) change; so once
// shapes are stable Invoke allocates nothing. Static tensors keep the
// arena plan. WHILE and IF (control.go) run other subgraphs, each a child
// interpreter with its own plan, charged to the same bound; loops are
// bounded by Options.MaxLoopIterations, and recursion and subgraph indices
// out of range are refused. Diagnose lists every operator that cannot be
// prepared, where AllocateTensors stops at the first.
//
// # Memory
//
// Options.MaxArenaBytes bounds everything an interpreter takes: its
// tensor and operator lists, the kernels' tables and packed weights
// (each kernel reserves them at Prepare, ops.Node.Reserve, before it
// makes them), the arena, the variable and the precomputed tensors. A
// model that needs more is refused with an *ops.MemoryError naming what
// needed the memory.
//
// # Lifetimes and goroutines
//
// An Interpreter is not safe for concurrent use: make one per goroutine;
// they may share the Model. A call made while another goroutine runs the
// interpreter returns ErrConcurrentUse instead of corrupting it. Close
// an interpreter when done (Interpreter.Close; its methods then return
// ErrClosed). Model.Close may be called at any time: New refuses the
// model afterwards (ErrModelClosed), but the interpreters already made
// keep working, and the memory map is released only when the Model is
// closed and the last of its interpreters is closed or garbage-collected,
// so no interpreter ever reads unmapped memory. Options.ISA selects the
// process-wide instruction-set level: New refuses to change it while
// another interpreter is alive, and arch.Use refuses during a run.
//
// # State of recurrent models
//
// The fused recurrent kernels (UNIDIRECTIONAL_SEQUENCE_LSTM, LSTM,
// BIDIRECTIONAL_SEQUENCE_LSTM, the RNN family, SVDF and
// UNIDIRECTIONAL_SEQUENCE_GRU) keep their state in the model's variable
// tensors, which persist across Invoke calls as in TensorFlow Lite: each
// Invoke starts from the state the previous one left, so a model that
// takes one time step per Invoke (a streaming model such as DTLN) carries
// its state from call to call (for the unidirectional kernels, T invokes
// of one step equal one invoke of T steps), and a model that takes a whole
// sequence per Invoke starts the next sequence from the last one's final
// state. To run independent sequences, call ResetVariableTensors
// between them (AllocateTensors also resets the state). The one departure
// from TensorFlow Lite is UNIDIRECTIONAL_SEQUENCE_GRU, whose experimental
// TensorFlow Lite kernel never writes its state back; tflrun's carries it
// over like the others, and one Invoke from a fresh state gives TensorFlow
// Lite's outputs. A variable tensor may also be a graph input (a model
// whose recurrent state starts from a value the caller gives, such as a
// seq2seq decoder converted with its initial_state inputs): the caller
// writes it after AllocateTensors and before each Invoke, and the
// operator leaves its final state there.
package interpreter
