package ops

// Threads is the number of threads Parallel may run on, the calling one
// included (interpreter.Options.NumThreads resolved; 1 without a pool).
// A kernel that needs scratch per thread requests Threads() copies at
// Prepare and indexes them by Parallel's worker argument.
func (n *Node) Threads() int { return n.Pool.Threads() }

// Parallel calls f over the units [0, count) split into disjoint ranges
// [lo, hi), on up to Threads() threads at once, and returns when all are
// done; worker (in [0, Threads())) names the thread, for per-thread
// scratch. Each unit must write outputs no other unit reads or writes,
// so that the result is bit-identical for every thread count. work is
// the cost of the whole range in multiply-adds or element operations:
// work too small to pay for waking a thread (parallel.MinWork per
// thread) stays on the caller, and above that the pool splits the range
// only if it has timed splitting it faster (parallel.SetTuning). Pass a function value made once (a method
// value kept in the kernel at Prepare): a closure literal built at each
// Eval allocates. A panic in f is re-raised on the caller.
func (n *Node) Parallel(count, work int, f func(worker, lo, hi int)) {
	n.Pool.Run(count, work, f)
}
