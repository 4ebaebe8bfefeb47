package parallel

import "syscall"

// osYield gives the CPU to another runnable thread of the machine, if
// any (sched_yield(2)): a spinning worker must not take the core from
// the thread that calls Run, or from other processes, on a machine with
// more runnable threads than cores.
func osYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
