// Package controlflow lowers TensorFlow control flow whose trip count is
// known at conversion time into straight-line graphs of ordinary ops, so
// that a recurrent layer the fusion rules did not claim (or that
// --no-fuse keeps from them) becomes primitive TFLite operators: the cell
// body inlined once per time step, list items turned into slices and
// packs.
//
// Three constructs are handled:
//
//   - TF2 functional loops (While, StatelessWhile) and conditionals (If,
//     StatelessIf), as Keras's standard_lstm / standard_gru / SimpleRNN
//     bodies produce them. A loop is unrolled by evaluating its condition
//     function on the current loop values with constant folding: while it
//     folds to true, a private copy of the body is specialised to the
//     loop values and inlined, and its results become the next loop
//     values. The loop counter and time index therefore stay constants
//     and every list index folds. A condition that does not fold (a
//     dynamic time dimension) is an error naming the loop node. A
//     conditional with a constant predicate becomes the branch it
//     selects; one with a one-element run-time predicate becomes both
//     branches and a SelectV2 per output, when neither branch has a side
//     effect (variable writes, random numbers, asserts, calls).
//   - TensorList ops (TensorListReserve, TensorListFromTensor,
//     TensorListGetItem, TensorListSetItem, TensorListStack,
//     TensorListLength, TensorListElementShape, TensorListPushBack,
//     TensorListPopBack, TensorListGather) and the TensorArrayV3 family
//     (TensorArrayV3, TensorArrayScatterV3, TensorArrayReadV3,
//     TensorArrayWriteV3, TensorArrayGatherV3, TensorArraySizeV3) with
//     constant indices: a list is tracked at conversion time as a vector
//     of tensors, a tensor turned into a list becomes one Unpack, a read
//     becomes that item, and a stack becomes one Pack. Items never written
//     read as zeros (TensorFlow's rule for a reserved list with a known
//     element shape).
//   - TF1 loops (Enter/Merge/Switch/LoopCond/NextIteration/Exit frames):
//     FunctionalizeV1 rewrites each frame into a While node over a
//     condition and a body function it builds and registers in the module,
//     which the unroller above then handles. This must run before
//     anything sorts the graph, since a TF1 loop is a cycle. TF1
//     conditionals left outside any frame (Switch/Merge, tf.cond before
//     control flow v2) become both branches and a SelectV2 per Merge,
//     each Merge input attributed to the branch of the Switch outputs it
//     is computed from (lowerV1Conds).
//
// The converter calls FunctionalizeV1 before its first simplification and
// Step whenever no function call is left to inline (package convert).
package controlflow
