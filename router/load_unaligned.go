//go:build amd64 || arm64

package router

import "unsafe"

// Little-endian loads of 8, 4 and 2 bytes from p, which need not be
// aligned: one instruction each on these CPUs. The caller guarantees the
// bytes are readable. load_portable.go has the same for other CPUs.

func load64(p unsafe.Pointer) uint64 { return *(*uint64)(p) }
func load32(p unsafe.Pointer) uint32 { return *(*uint32)(p) }
func load16(p unsafe.Pointer) uint16 { return *(*uint16)(p) }
