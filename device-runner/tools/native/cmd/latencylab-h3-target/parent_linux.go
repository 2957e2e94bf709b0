package main

import (
	"runtime"
	"syscall"
)

// exitWithParent asks the kernel for SIGTERM when the parent dies (PR_SET_PDEATHSIG),
// handled like any SIGTERM. Watching stdin covers the rest (the parent died before
// this call, or exited while the thread that made it lives on).
func exitWithParent() {
	runtime.LockOSThread() // the setting belongs to this thread: keep it alive with main
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0)
}
