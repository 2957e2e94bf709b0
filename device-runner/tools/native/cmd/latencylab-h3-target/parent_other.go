//go:build !linux

package main

// exitWithParent: only Linux has PR_SET_PDEATHSIG; watching stdin still applies.
func exitWithParent() {}
