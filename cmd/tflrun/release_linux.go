//go:build linux

package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// releaseStartupPages drops this process's page-table entries for the
// read-only mappings of its own executable (text and read-only data),
// with madvise(MADV_DONTNEED): the pages stay in the page cache, and the
// ones the run still needs come back by minor faults. Startup touches
// (and the kernel's fault-around maps, 64 KiB per fault) code and tables
// of every package of the binary — the converter's protobuf descriptors,
// the CLI — most of which a benchmark never runs again; without this they
// stay resident and count in the peak RSS bench reports. Errors are
// ignored: the release only lowers the resident set.
func releaseStartupPages() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		// address perms offset dev inode path
		fl := strings.Fields(s.Text())
		if len(fl) < 6 || fl[5] != exe || strings.Contains(fl[1], "w") {
			continue
		}
		lo, hi, ok := strings.Cut(fl[0], "-")
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || b <= a {
			continue
		}
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(a), uintptr(b-a), syscall.MADV_DONTNEED)
	}
}
